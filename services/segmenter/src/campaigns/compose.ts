import type { Analytics } from '@evp/core';
import type { SegmentDefinitions } from '../segments';
import type { CampaignDocument } from './document';
import { catalogLoader, loadUserFacts } from './loaders';
import { campaignReport } from './report';
import { createCampaignsService, type CampaignReport, type CampaignsService, type TriggerApi } from './service';
import { documentSplit } from './source';
import { createCampaignStore, type CampaignStore } from './store';
import { TemplateEngine } from './templates';
import { createCampaignWorker, type CampaignWorker, type CampaignWorkerDeps } from './worker';

export interface CampaignsDeps {
  analytics: Analytics;
  /** The app's saved segments (the segment engine's store): what a trigger may name. */
  segments: Pick<SegmentDefinitions, 'list'>;
  /**
   * The campaign worker's deps but those composed here (it reads this store, renders with this
   * template engine): given, the worker is created and answers `POST /v1/campaigns/{id}/trigger`.
   */
  worker?: Omit<CampaignWorkerDeps, 'analytics' | 'campaigns' | 'templates' | 'now'>;
  /** The entry for API triggers when no worker is composed here (tests); absent with no worker: that route answers 503 not_enabled. */
  triggerApi?: TriggerApi;
  /** The campaign report; absent: that route answers 503 not_enabled. */
  report?: CampaignReport;
  now?: () => number;
}

/**
 * Campaigns as one part, for both composition roots (the segmenter's main.ts and `npm start`): the
 * store (ClickHouse), the API's service, and (with `worker`) the campaign worker, which reads the
 * store as its CampaignSource and shares the template engine. The caller starts and stops the
 * worker and hands its `onInserted` to the sink.
 */
interface CampaignParts {
  service: CampaignsService;
  store: CampaignStore;
  /** The ids of the app's campaigns, not ended, whose trigger names the segment (`segment_entry`, or a schedule's `segment`), by creation. */
  usingSegment(appId: string, segmentId: string): Promise<string[]>;
}
export function createCampaigns(deps: CampaignsDeps & { worker: NonNullable<CampaignsDeps['worker']> }): CampaignParts & { worker: CampaignWorker };
export function createCampaigns(deps: CampaignsDeps): CampaignParts;
export function createCampaigns(deps: CampaignsDeps): CampaignParts & { worker?: CampaignWorker } {
  const now = deps.now ? { now: deps.now } : {};
  const store = createCampaignStore({ analytics: deps.analytics, ...now });
  const templates = new TemplateEngine();
  const worker = deps.worker ? createCampaignWorker({ ...deps.worker, analytics: deps.analytics, campaigns: store, templates, ...now }) : undefined;
  const triggerApi = worker ? worker.triggerApi.bind(worker) : deps.triggerApi;
  const service = createCampaignsService({
    store,
    segments: deps.segments,
    templates,
    users: {
      load: async (appId, userId) => (await loadUserFacts(deps.analytics, appId, [userId])).get(userId) ?? {},
      catalog: (appId) => catalogLoader(deps.analytics, appId),
    },
    ...(triggerApi ? { triggerApi } : {}),
    ...(deps.report ? { report: deps.report } : {}),
    ...(worker ? { onChanged: () => worker.refresh() } : {}),
    ...now,
  });
  const usingSegment = async (appId: string, segmentId: string) =>
    (await store.list(appId)).filter((c) => c.state !== 'ended' && triggerSegment(c.document) === segmentId).map((c) => c.id);
  return { service, store, usingSegment, ...(worker ? { worker } : {}) };
}

function triggerSegment({ trigger }: CampaignDocument): string | undefined {
  if ('segment_entry' in trigger) return trigger.segment_entry;
  if ('schedule' in trigger) return trigger.segment;
  return undefined;
}

/** The report of report.ts over the same ClickHouse, as the API's `report` part; `now` is the report's instant. */
export function clickhouseReport(analytics: Analytics, now: () => number = Date.now): CampaignReport {
  return (appId, campaign) =>
    campaignReport(analytics, {
      appId,
      campaignId: campaign.id,
      goal: campaign.document.goal,
      now: new Date(now()),
      split: { ...documentSplit(campaign.document), history: campaign.splits },
      adaptive: campaign.document.adaptive !== undefined,
      plannedUsers: campaign.document.sample_size,
      minEffect: campaign.document.min_effect,
    });
}
