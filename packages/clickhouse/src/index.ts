export * from './analytics';
export * from './errors';
export * from './http';
export * from './identifiers';
export * from './json-row';
export * from './migrations';
export * from './time';
export * from './well-formed';
