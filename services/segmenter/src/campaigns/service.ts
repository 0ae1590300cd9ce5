import { ApiError, type RejectionReason } from '@evp/core';
import { contractEvent } from '@evp/segment-language';
import type { SegmentDefinitions } from '../segments';
import { actionFor, variantTemplates } from './action-template';
import { validateAppSettings, type CampaignAppSettings } from './app-settings';
import { assign } from './assignment';
import type { CampaignDocument } from './document';
import { isEditable, isLive, transition, type CampaignCommand } from './states';
import type { Campaign, CampaignStore } from './store';
import { CatalogRecords, userScope, type TemplateData } from './template-data';
import type { CatalogLoader, TemplateEngine } from './templates';
import type { UserFacts } from './loaders';
import { validateCampaign } from './validate';

/** Starts one run of an API-triggered campaign for these users; resolves once the run is durable (the campaign worker's). */
export type TriggerApi = (appId: string, campaign: Campaign, userIds: string[]) => Promise<{ inv_id: number; users: number }>;
/** The campaign's report (docs/campaigns.md, "Report"; the report's). */
export type CampaignReport = (appId: string, campaign: Campaign) => Promise<unknown>;

export interface CampaignsServiceDeps {
  store: CampaignStore;
  /** The app's saved segments: a trigger may name only those. */
  segments: Pick<SegmentDefinitions, 'list'>;
  templates: TemplateEngine;
  /** What a preview renders with: one user's data, and catalog records by id. */
  users: { load(appId: string, userId: string): Promise<UserFacts>; catalog(appId: string): CatalogLoader };
  /** Absent: `POST /v1/campaigns/{id}/trigger` answers 503 not_enabled. */
  triggerApi?: TriggerApi;
  /** Absent: `GET /v1/campaigns/{id}/report` answers 503 not_enabled. */
  report?: CampaignReport;
  /**
   * Called once a state change or a new document is saved, before the answer: the campaign worker
   * composed in this process reloads its active campaigns, so a `resume` acts on the next trigger
   * here rather than after the worker's next periodic refresh (other replicas still see it then).
   */
  onChanged?: () => Promise<void>;
  now?: () => number;
}

/** Most reasons one 400 lists (as the segments API). */
const MAX_REASONS_LISTED = 100;
/** Most users of one `POST /v1/campaigns/{id}/trigger`. */
export const TRIGGER_MAX_USERS = 10_000;
const USER_ID_MAX = 256;

/** What a preview says of one user: the action the campaign would request, or why it would request none (as `campaign_outcomes` records it). */
export type PreviewOutcome =
  | { user_id: string; variant: number; outcome: 'requested'; action: Record<string, unknown> }
  | { user_id: string; variant: number; outcome: 'control' | 'skipped'; reason: string };

/** 400 invalid_campaign naming the first problem; `details.issues` lists them, paths from the body's root (`prefix`: where the document sits). */
function refuse(reasons: RejectionReason[], prefix = '$'): never {
  const under = (path: string) => prefix + path.slice(1);
  const first = reasons[0] as RejectionReason;
  throw new ApiError('invalid_campaign', {
    message: first.message,
    path: under(first.path),
    details: { issues: reasons.slice(0, MAX_REASONS_LISTED).map((p) => ({ ...p, path: under(p.path) })), issue_count: reasons.length },
  });
}

function objectBody(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new ApiError('invalid_request', { message: 'the body must be a JSON object', path: '$' });
  return body as Record<string, unknown>;
}

function userId(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > USER_ID_MAX)
    throw new ApiError('invalid_request', { message: `a user id is a string of 1–${USER_ID_MAX} characters`, path });
  return value;
}

/**
 * The campaigns an app defines, as its API offers them (docs/campaigns.md, "API"): every call is
 * scoped to the key's app; a document is validated against the app's saved segments and the data
 * contract before it is saved; state changes follow states.ts.
 */
export function createCampaignsService(deps: CampaignsServiceDeps) {
  const now = deps.now ?? Date.now;

  async function validated(appId: string, json: unknown, prefix = '$'): Promise<CampaignDocument> {
    const segments = new Set((await deps.segments.list(appId)).map((s) => s.id));
    const r = validateCampaign(json, { segmentExists: (id) => segments.has(id), templates: deps.templates });
    if (!r.ok) refuse(r.reasons, prefix);
    return r.value;
  }

  async function existing(appId: string, id: string): Promise<Campaign> {
    const c = await deps.store.get(appId, id);
    if (!c) throw new ApiError('not_found', { message: `no campaign ${id} in this app`, path: 'params.campaign_id' });
    return c;
  }

  async function command(appId: string, id: string, cmd: CampaignCommand): Promise<Campaign> {
    const current = await existing(appId, id);
    const t = transition(current.state, cmd);
    if (!t.ok)
      throw new ApiError('conflict', { message: (t.reasons[0] as RejectionReason).message, path: 'params.campaign_id', details: { state: current.state } });
    // A repeated command changes nothing: no new version.
    if (!t.value.changed) return current;
    return changed(await deps.store.change(current, { state: t.value.state }));
  }

  /** The saved change, after the local worker has seen it. Its refresh failing loses nothing: the change is saved and its periodic refresh (which logs failures) comes. */
  async function changed(c: Campaign): Promise<Campaign> {
    await deps.onChanged?.().catch(() => undefined);
    return c;
  }

  function enabled<T>(part: T | undefined, what: string): T {
    if (part === undefined) throw new ApiError('not_enabled', { message: `${what} is not enabled in this deployment (no campaign worker runs here)` });
    return part;
  }

  /** The campaign a preview renders: a saved one by id, or a document (validated, not saved). */
  async function previewed(appId: string, value: unknown): Promise<{ id: string | undefined; document: CampaignDocument; actionIds?: number[] }> {
    if (typeof value === 'string') {
      const c = await existing(appId, value);
      return { id: c.id, document: c.document, actionIds: c.action_ids };
    }
    if (value === undefined)
      throw new ApiError('invalid_request', { message: 'campaign is required: a campaign document, or the id of a saved campaign', path: '$.campaign' });
    return { id: undefined, document: await validated(appId, value, '$.campaign') };
  }

  return {
    async create(appId: string, body: unknown): Promise<Campaign> {
      return deps.store.create(appId, await validated(appId, body));
    },
    list: (appId: string): Promise<Campaign[]> => deps.store.list(appId),
    get: existing,
    async update(appId: string, id: string, body: unknown): Promise<Campaign> {
      const current = await existing(appId, id);
      if (!isEditable(current.state)) {
        const why = current.state === 'active' ? 'pause it first' : 'an ended campaign is a record of what ran';
        throw new ApiError('conflict', {
          message: `cannot replace the document of a campaign that is ${current.state}: ${why}`,
          path: 'params.campaign_id',
          details: { state: current.state },
        });
      }
      return changed(await deps.store.change(current, { document: await validated(appId, body) }));
    },
    pause: (appId: string, id: string) => command(appId, id, 'pause'),
    resume: (appId: string, id: string) => command(appId, id, 'resume'),
    end: (appId: string, id: string) => command(appId, id, 'end'),
    settings: (appId: string): Promise<CampaignAppSettings> => deps.store.settings(appId),
    async putSettings(appId: string, body: unknown): Promise<CampaignAppSettings> {
      const r = validateAppSettings(body);
      if (!r.ok) refuse(r.reasons);
      return deps.store.putSettings(appId, r.value);
    },
    async trigger(appId: string, id: string, body: unknown): Promise<{ inv_id: number; users: number }> {
      const run = enabled(deps.triggerApi, 'triggering a campaign');
      const ids = objectBody(body).user_ids;
      if (!Array.isArray(ids) || ids.length === 0 || ids.length > TRIGGER_MAX_USERS)
        throw new ApiError('invalid_request', { message: `user_ids must be an array of 1–${TRIGGER_MAX_USERS} user ids`, path: '$.user_ids' });
      const users = [...new Set(ids.map((u, i) => userId(u, `$.user_ids[${i}]`)))];
      const campaign = await existing(appId, id);
      if (!('api' in campaign.document.trigger))
        throw new ApiError('conflict', {
          message: `campaign ${id} is not triggered by the API: its trigger is ${Object.keys(campaign.document.trigger)[0]}`,
          path: 'params.campaign_id',
        });
      if (campaign.state !== 'active')
        throw new ApiError('conflict', {
          message: `campaign ${id} is ${campaign.state}: only an active campaign can be triggered`,
          path: 'params.campaign_id',
          details: { state: campaign.state },
        });
      const { start_at: start, end_at: end } = campaign.document;
      if (!isLive(campaign.state, { ...(start ? { startMs: Date.parse(start) } : {}), ...(end ? { endMs: Date.parse(end) } : {}) }, now())) {
        const why = start && now() < Date.parse(start) ? `it starts at ${start}` : `it ended at ${end}`;
        throw new ApiError('conflict', {
          message: `campaign ${id} acts on no trigger now: ${why}`,
          path: 'params.campaign_id',
          details: { state: campaign.state },
        });
      }
      return run(appId, campaign, users);
    },
    async report(appId: string, id: string): Promise<unknown> {
      const report = enabled(deps.report, 'the campaign report');
      return report(appId, await existing(appId, id));
    },
    async preview(appId: string, body: unknown): Promise<PreviewOutcome> {
      const b = objectBody(body);
      const user = userId(b.user_id, '$.user_id');
      const event = b.event;
      if (event !== undefined && (event === null || typeof event !== 'object' || Array.isArray(event)))
        throw new ApiError('invalid_request', { message: 'event must be an object: the triggering event’s properties', path: '$.event' });
      const { id, document, actionIds } = await previewed(appId, b.campaign);
      const trigger = document.trigger;
      if (event !== undefined && !('event' in trigger))
        throw new ApiError('invalid_request', { message: 'event is given only for a campaign with an event trigger', path: '$.event' });
      const templates = variantTemplates(document);
      // An unsaved document has no id yet: it is assigned as the id `preview` would be.
      const a = assign(id ?? 'preview', user, { holdout: document.holdout ?? 0, weights: document.variants?.map((v) => v.weight) ?? [1] });
      if (a.group === 'control') return { user_id: user, variant: 0, outcome: 'control', reason: 'control' };
      const template = templates[a.variant] as (typeof templates)[number];
      const at = now();
      const loaded = await deps.users.load(appId, user);
      const data: TemplateData = {
        user: userScope(user, loaded.record, loaded.facts),
        trigger: { kind: Object.keys(trigger)[0] as TemplateData['trigger']['kind'], time: new Date(at).toISOString() },
      };
      if ('event' in trigger) {
        data.trigger.event = contractEvent(trigger.event.event)?.name ?? trigger.event.event;
        if (event !== undefined) data.event = event as Record<string, unknown>;
      }
      const compiled = deps.templates.compile(template.content);
      const [rendered] = await deps.templates.renderAll(compiled, [data], deps.users.catalog(appId), new CatalogRecords());
      const variant = a.variant + 1;
      if (!rendered || rendered.status === 'skipped') return { user_id: user, variant, outcome: 'skipped', reason: rendered?.reason ?? 'template_error' };
      // A preview is no run: its action has the variant's action_id (a saved campaign's) and no inv_id.
      const action = actionFor(template, { userId: user, content: rendered.content, inv_id: 1, action_id: actionIds?.[a.variant] ?? 1, createdAtMs: at });
      if (!action.ok) {
        const first = action.reasons[0];
        return {
          user_id: user,
          variant,
          outcome: 'skipped',
          reason: `invalid_action: ${first ? `${first.path} ${first.message}` : 'refused by the action store'}`,
        };
      }
      const { inv_id: _inv, action_id: actionId, ...fields } = action.value as unknown as Record<string, unknown>;
      return { user_id: user, variant, outcome: 'requested', action: actionIds ? { ...fields, action_id: actionId } : fields };
    },
  };
}

export type CampaignsService = ReturnType<typeof createCampaignsService>;
