export * from './port';
export * from './in-memory';
export * from './redis';
export * from './fail-open';
export * from './middleware';
