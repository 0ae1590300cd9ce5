export * from './app';
export * from './auth';
export * from './errors';
export * from './metrics';
export * from './request-id';
export * from './server';
export * from './hot-routes';
export * from './ops-server';
