import type { Request, Router } from 'express';
import { ApiError, type Analytics, type KeyRing } from '@evp/core';
import { grantOf, jsonBody, requireKey } from '@evp/http';
import type { Campaign, CampaignsService } from '../campaigns';
import { SEGMENT_BODY_LIMIT } from './segments';
import { campaignActivity } from '../campaigns';
import { HOURS_DEFAULT, HOURS_MAX, spanParam } from './health';
import { viewTimes } from './versioned-view';

/** A campaign document is small (its templates are bounded by the action store's content limits); so is a trigger's list of user ids. */
export const CAMPAIGN_BODY_LIMIT = SEGMENT_BODY_LIMIT;
/** Campaign ids are UUIDs the service gives, so `preview`, `settings` and `activity` under /v1/campaigns/ are never one. */
const ID = /^[A-Za-z0-9._:-]{1,128}$/;

function param(raw: unknown): string {
  const v = String(raw);
  if (!ID.test(v)) throw new ApiError('invalid_request', { message: 'campaign_id is 1–128 of A-Z a-z 0-9 . _ : -', path: 'params.campaign_id' });
  return v;
}

/** The campaign as the API shows it (the app is the key's, so it is not repeated). */
export const campaignView = (c: Campaign) => ({
  id: c.id,
  name: c.name,
  version: c.version,
  state: c.state,
  document: c.document,
  action_ids: c.action_ids,
  ...viewTimes(c),
});

/**
 * The campaigns API (docs/campaigns.md#api), API key only: campaigns decide what an app's users are
 * sent, which an SDK key (public, in every app binary) must never read or change.
 */
export function campaignRoutes(
  router: Router,
  keys: KeyRing,
  campaigns: CampaignsService,
  analytics: Analytics,
  guarded: <T>(req: Request, op: () => Promise<T>) => Promise<T>,
): void {
  const api = requireKey(keys, 'api');
  const body = jsonBody(CAMPAIGN_BODY_LIMIT);
  const app = (req: Request) => grantOf(req).appId;
  // The fixed paths first: they are not ids.
  router.post('/v1/campaigns/preview', api, body, async (req, res) => {
    res.status(200).json(await guarded(req, () => campaigns.preview(app(req), req.body)));
  });
  router.get('/v1/campaigns/settings', api, async (req, res) => {
    res.status(200).json(await guarded(req, () => campaigns.settings(app(req))));
  });
  router.put('/v1/campaigns/settings', api, body, async (req, res) => {
    res.status(200).json(await guarded(req, () => campaigns.putSettings(app(req), req.body)));
  });
  router.get('/v1/campaigns/activity', api, async (req, res) => {
    const hours = spanParam(req.query, 'hours', HOURS_DEFAULT, HOURS_MAX);
    res.status(200).json({ data: await guarded(req, () => campaignActivity(analytics, app(req), hours, Date.now())) });
  });
  router.post('/v1/campaigns', api, body, async (req, res) => {
    res.status(201).json(campaignView(await guarded(req, () => campaigns.create(app(req), req.body))));
  });
  router.get('/v1/campaigns', api, async (req, res) => {
    res.status(200).json({ data: (await guarded(req, () => campaigns.list(app(req)))).map(campaignView) });
  });
  router.get('/v1/campaigns/:campaign_id', api, async (req, res) => {
    const id = param(req.params.campaign_id);
    res.status(200).json(campaignView(await guarded(req, () => campaigns.get(app(req), id))));
  });
  router.put('/v1/campaigns/:campaign_id', api, body, async (req, res) => {
    const id = param(req.params.campaign_id);
    res.status(200).json(campaignView(await guarded(req, () => campaigns.update(app(req), id, req.body))));
  });
  for (const command of ['pause', 'resume', 'end'] as const) {
    router.post(`/v1/campaigns/:campaign_id/${command}`, api, async (req, res) => {
      const id = param(req.params.campaign_id);
      res.status(200).json(campaignView(await guarded(req, () => campaigns[command](app(req), id))));
    });
  }
  router.post('/v1/campaigns/:campaign_id/trigger', api, body, async (req, res) => {
    const id = param(req.params.campaign_id);
    res.status(202).json(await guarded(req, () => campaigns.trigger(app(req), id, req.body)));
  });
  router.get('/v1/campaigns/:campaign_id/report', api, async (req, res) => {
    const id = param(req.params.campaign_id);
    res.status(200).json(await guarded(req, () => campaigns.report(app(req), id)));
  });
}
