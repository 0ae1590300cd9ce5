export * from './sink';
export * from './config';
export { runMigrations, DEFAULT_MIGRATIONS_DIR } from '@evp/clickhouse';
export * from './api';
export {
  SEGMENT_ENGINE_OPTIONS,
  MAX_REASONS_LISTED,
  NAME_MAX,
  PREVIEW_SAMPLE,
  createSegmentEngine,
  createSegments,
  createSegmentsService,
  workForRows,
  type SegmentEngine,
  type SegmentEngineConfig,
  type SegmentEngineDeps,
  type SegmentEntry,
  type SegmentsDeps,
  type SegmentPreview,
  type SegmentsService,
  type SegmentsServiceDeps,
  type UserSegment,
  type WorkItem,
} from './segments';
export { CAMPAIGN_WORKER_OPTIONS, assign, clickhouseReport, createCampaigns, runInvId, type CampaignsDeps } from './campaigns';
export { createSegmenterParts, type SegmenterPartsDeps } from './segmenter-parts';
export { createPrivacyService, startPrivacyProcessor, suppressionLog, type ErasureRequest, type PrivacyService } from './privacy';
