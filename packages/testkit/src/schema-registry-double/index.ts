export * from './app';
export * from './confluent-errors';
export * from './server';
