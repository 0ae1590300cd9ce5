export * from './sink';
export * from './rows';
export * from './batcher';
export * from './config';
export { runMigrations, DEFAULT_MIGRATIONS_DIR } from '@evp/clickhouse';
export * from './http/app';
export { segmenterOpenApi } from './http/openapi';
