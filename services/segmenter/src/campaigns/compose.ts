import type { Analytics } from '@evp/core';
import type { SegmentDefinitions } from '../segments/model';
import { campaignReport } from './report';
import { createCampaignsService, type CampaignReport, type CampaignsService, type TriggerApi } from './service';
import { createCampaignStore, type CampaignStore } from './store';
import { TemplateEngine } from './templates';
import { catalogLoader, loadUserFacts } from './loaders';

export interface CampaignsDeps {
  analytics: Analytics;
  /** The app's saved segments (the segment engine's store): what a trigger may name. */
  segments: Pick<SegmentDefinitions, 'list'>;
  /** The composition root's template engine, when another part (the campaign worker) shares it. */
  templates?: TemplateEngine;
  /** The campaign worker's entry for API triggers; absent: that route answers 503 not_enabled. */
  triggerApi?: TriggerApi;
  /** The campaign report; absent: that route answers 503 not_enabled. */
  report?: CampaignReport;
  now?: () => number;
}

/**
 * Campaigns as one part, for both composition roots (the segmenter's main.ts and `npm start`): the
 * store (ClickHouse; also what the campaign worker reads, as a CampaignReader) and the API's service.
 */
export function createCampaigns(deps: CampaignsDeps): { service: CampaignsService; store: CampaignStore } {
  const now = deps.now ? { now: deps.now } : {};
  const store = createCampaignStore({ analytics: deps.analytics, ...now });
  const service = createCampaignsService({
    store,
    segments: deps.segments,
    templates: deps.templates ?? new TemplateEngine(),
    users: {
      load: async (appId, userId) => (await loadUserFacts(deps.analytics, appId, [userId])).get(userId) ?? {},
      catalog: (appId) => catalogLoader(deps.analytics, appId),
    },
    ...(deps.triggerApi ? { triggerApi: deps.triggerApi } : {}),
    ...(deps.report ? { report: deps.report } : {}),
    ...now,
  });
  return { service, store };
}

/** The report of report.ts over the same ClickHouse, as the API's `report` part; `now` is the report's instant. */
export function clickhouseReport(analytics: Analytics, now: () => number = Date.now): CampaignReport {
  return (appId, campaign) =>
    campaignReport(analytics, {
      appId,
      campaignId: campaign.id,
      variants: campaign.document.variants?.length ?? 1,
      goal: campaign.document.goal,
      now: new Date(now()),
    });
}
