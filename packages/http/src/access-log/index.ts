export { GENESIS, STATEMENT_MAX_CHARS, chainEntry, entryHash, type AccessEntry, type AccessRead } from './model';
export { ChainVerifier, verifyChain, type ChainVerdict } from './verify';
export { SCAN_MAX, createAccessLog, type AccessFilter, type AccessLog, type AccessLogStorage, type AccessPage, type ChainHead } from './log';
export { createInMemoryAccessLogStorage } from './in-memory';
export { createRedisAccessLogStorage, type RedisAccessLogOptions, type RedisStreamCommands } from './redis';
export { readRecorder, type ReadFacts, type RecordRead } from './record';
