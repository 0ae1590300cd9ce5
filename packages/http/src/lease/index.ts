export { createRedisLeaseStore, type RedisLeaseCommands, type RedisLeaseOptions } from './redis';
