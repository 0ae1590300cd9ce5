export * from './model';
export * from './clock';
export * from './time';
export * from './records';
export * from './store';
export * from './validation';
export * from './redis/redis-action-store';
export * from './messages';
