export {
  MIN_HS256_KEY_BYTES,
  MIN_PSEUDONYM_KEY_BYTES,
  ROLES,
  USER_TOKEN_ALGS,
  USER_TOKEN_POLICIES,
  keysFileSchema,
  parseKeysFile,
  readKeysFile,
  type AnyKeyEntry,
  type KeyEntry,
  type KeysFile,
  type PseudonymKeyEntry,
  type Role,
  type UserTokenAlg,
  type UserTokenKeyEntry,
  type UserTokenPolicy,
} from './file';
export { KeyRing, type KeyGrant, type KeyInfo, type KeyMatch, type KeyRingOptions, type UserTokenKey } from './ring';
export { KeyUsageTracker, createInMemoryKeyUsageStore, type KeyUsageTrackerOptions } from './usage';
export {
  UserTokenOutcomeTracker,
  createInMemoryUserTokenCountStore,
  oldestMinuteOfHour,
  zeroOutcomeCounts,
  type UserTokenOutcomeTrackerOptions,
} from './token-outcomes';
export {
  DEFAULT_RETENTION,
  MAX_RETENTION_DAYS,
  RETENTION_CLASSES,
  RETENTION_CLASS_NAMES,
  resolveRetention,
  type AppRetention,
  type RetentionClass,
  type RetentionSettings,
} from './retention';
