export { ROLES, keysFileSchema, parseKeysFile, readKeysFile, type KeyEntry, type KeysFile, type Role } from './file';
export { KeyRing, type KeyGrant, type KeyInfo, type KeyMatch, type KeyRingOptions } from './ring';
export { KeyUsageTracker, createInMemoryKeyUsageStore, type KeyUsageTrackerOptions } from './usage';
