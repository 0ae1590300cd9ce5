export * from './classes';
export * from './pseudonym';
export * from './policy';
export * from './suppressions';
