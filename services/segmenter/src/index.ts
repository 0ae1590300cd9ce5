export * from './sink';
export * from './rows';
export * from './batcher';
export * from './config';
export { runMigrations, DEFAULT_MIGRATIONS_DIR } from '@evp/clickhouse';
export * from './http/app';
export { SEGMENT_BODY_LIMIT } from './http/segments';
export * from './segments/service';
export * from './segments/engine';
