// Campaigns: the store and API service behind /v1/campaigns, the worker that turns segment
// entries, events and schedules into requested actions, and the reports.
export { clickhouseReport, createCampaigns, type CampaignsDeps } from './compose';
export { assign } from './assignment';
export { runInvId, variantActionId } from './ids';
export { TRIGGER_MAX_USERS, type CampaignsService, type PreviewOutcome } from './service';
export type { CampaignReport } from './report';
export { CAMPAIGN_STATES, type CampaignState } from './states';
export type { Campaign } from './store';
export type { CampaignAction } from './deliver';
export type { CampaignSettings, CampaignSource, SplitChange, StoredCampaign } from './source';
export { sameSplit, splitHistory } from './source';
export type { TemplateEngine } from './templates';
export { validateCampaign } from './validate';
export { CAMPAIGN_WORKER_NAME, CAMPAIGN_WORKER_OPTIONS, type CampaignWorkerConfig } from './options';
export { campaignActivity, type CampaignActivity } from './activity';
export { uplift } from './uplift';
export { writeOutcomes, type OutcomeRow } from './outcomes';
