export * from './validator';
export * from './process-raw';
export * from './config';
