export * from './app';
export * from './config';
export * from './catalog';
export * from './coalescing-producer';
export * from './rate-limit';
export * from './readiness';
export * from './shutdown';
export type { ScriptFiles } from './sdk-script';
export { gatewayOpenApi } from './openapi';
