export * from './app';
export * from './config';
export * from './consumers/action-requests';
export * from './consumers/feedback';
export * from './sweeper';
export { actionStoreOpenApi } from './openapi';
export * from './log-relay';
