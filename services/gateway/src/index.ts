export * from './app';
export * from './config';
