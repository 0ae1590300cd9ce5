export * from './sink';
export * from './rows';
export * from './batcher';
export * from './config';
export { runMigrations, DEFAULT_MIGRATIONS_DIR } from '@evp/clickhouse';
export * from './http/app';
export {
  CONSOLE_CSP,
  CONSOLE_NAV,
  consolePage,
  loadConsoleAssets,
  parseSqlExamples,
  upliftWords,
  wilsonInterval,
  type ConsoleAssets,
  type ShellOptions,
} from './http/console';
export { SEGMENT_BODY_LIMIT } from './http/segments';
export * from './segments/service';
export * from './segments/engine';
export { workForRows, type SegmentEntry, type WorkItem } from './segments/work';
export { createSegments, type SegmentsDeps } from './segments/compose';
export { segmenterOpenApi } from './http/openapi';
export { clickhouseReport, createCampaigns, type CampaignsDeps } from './campaigns/compose';
export { assign } from './campaigns/assignment';
export { runInvId } from './campaigns/ids';
export { createSegmenterParts, type SegmenterPartsDeps } from './segmenter-parts';
