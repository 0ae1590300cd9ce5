export * from './vocabulary';
export * from './envelope';
export * from './raw-headers';
export * from './user-tokens';
