export { watchKeysFile, type KeysReloader, type KeysReloadOptions, type KeysReloadOutcome } from './reload';
export { createRedisKeyUsageStore, type RedisHashCommands, type RedisKeyUsageOptions } from './redis-usage';
export { serviceKeys, type ServiceKeys, type ServiceKeysOptions } from './service-keys';
