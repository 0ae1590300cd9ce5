/**
 * What the segmenter's API answers, as types: the one definition the server's handlers produce and
 * the console's browser code (packages/console) reads, so a renamed field is a compile error on both
 * sides. Each is derived from the code that builds the answer (a view function, a query's row type),
 * not written out a second time.
 */
import type { ErrorBody } from '@evp/core';
import type { CampaignActivity, CampaignReport, PreviewOutcome } from '../campaigns';
import type { MemberPage, MembershipHour, SegmentPreview } from '../segments';
import type { campaignView } from './campaigns';
import type { AppHealth } from './health';
import type { InspectedDeadLetter, InspectedEvent, InspectedRejection } from './inspect';
import type { KeyView, UserTokenKeyView, UserTokensOverview } from './keys';
import type { segmentView } from './segments';
import type { AuditReadsAnswer } from './audit';
import type { ErasureRequest, ExportRequest, Suppression } from '../privacy';
import type { SqlExample } from './console/sql-examples';

/** A list answer: `{ data: [...] }`. */
export interface DataAnswer<T> {
  data: T[];
}

export type {
  AppHealth,
  AuditReadsAnswer,
  ErasureRequest,
  ExportRequest,
  Suppression,
  CampaignActivity,
  CampaignReport,
  ErrorBody,
  InspectedDeadLetter,
  InspectedEvent,
  InspectedRejection,
  KeyView,
  MemberPage,
  MembershipHour,
  PreviewOutcome,
  SegmentPreview,
  SqlExample,
  UserTokenKeyView,
};

/** `GET /v1/campaigns/{id}` (and every answer that returns a campaign). */
export type CampaignAnswer = ReturnType<typeof campaignView>;
/** `GET /v1/segments/{id}`. */
export type SegmentAnswer = ReturnType<typeof segmentView>;
/** `GET /v1/segments?member_counts=true`: each segment with its current member count. */
export type SegmentWithCount = SegmentAnswer & { member_count: number };
/** `GET /v1/keys`. */
export interface KeysAnswer {
  app_id: string;
  data: KeyView[];
}
/** `GET /v1/keys/user-tokens`. */
export type UserTokensAnswer = UserTokensOverview;
/** `GET /v1/audit/verify`. */
export type { ChainVerdict } from '@evp/http';
