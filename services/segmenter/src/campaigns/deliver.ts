import { actionRequestMessage, MAX_ACTIONS_PER_CREATE, type ActionCaps, type NewAction } from '@evp/actions';
import type { Analytics, OutgoingMessage } from '@evp/core';
import { Duration } from 'luxon';
import { actionFor, variantTemplates } from './action-template';
import { firstVariants } from './adapt';
import { assign, type Assignment } from './assignment';
import { assignAdaptive } from './bandit';
import type { ActionTemplate, TriggerKind } from './document';
import { runInvId } from './ids';
import { catalogLoader, loadUserFacts } from './loaders';
import { availableAt, parseLocalTime, userZone, type LocalTimeRules } from './local-time';
import type { OutcomeRow } from './outcomes';
import { documentSplit, splitHistory, type CampaignSettings, type StoredCampaign } from './source';
import { CatalogRecords, userScope, type TemplateData } from './template-data';
import type { TemplateEngine } from './templates';

/**
 * One batch of a campaign's deliveries → its outcome rows and the actions to request: assignment
 * (control gets a row, nothing else), user data and catalog records loaded in batches, templates
 * rendered, local time and expiry applied, caps attached (docs/campaigns.md, "Triggers and
 * delivery"). Pure apart from the ClickHouse reads; the worker writes and produces.
 */

/** One user of one run: what the worker acts on. */
export interface Delivery {
  user_id: string;
  run_key: string;
  /** Epoch ms the trigger happened. */
  at: number;
  trigger: TriggerKind;
  /** An event trigger's event: its canonical name and properties. */
  event?: { name: string; props: Record<string, unknown> };
}

/** An action of `actions.requested` as a campaign requests it: both ids, maybe caps and `available_at` (RFC 3339). */
export type CampaignAction = NewAction & { inv_id: number; action_id: number };

export interface DeliveryPlan {
  outcomes: OutcomeRow[];
  actions: CampaignAction[];
}

/** A duration as milliseconds, months counted as 30 days (what a cap's sliding window can be). */
export const durationMs = (iso: string): number => Duration.fromISO(iso).as('milliseconds');

function capsOf(campaign: StoredCampaign, settings: CampaignSettings): ActionCaps | undefined {
  const caps: ActionCaps = {};
  const perUser = campaign.document.caps?.per_user;
  if (perUser) caps.campaign = { key: campaign.id, max: perUser.max, within_ms: durationMs(perUser.within) };
  if (!campaign.document.caps?.ignore_app_cap && settings.max_per_user_per_day !== null) caps.app = { max: settings.max_per_user_per_day };
  return caps.campaign || caps.app ? caps : undefined;
}

function localRules(campaign: StoredCampaign): LocalTimeRules {
  const { quiet_hours: quiet, send_at_local: sendAt } = campaign.document;
  const rules: LocalTimeRules = {};
  if (quiet) rules.quietHours = { start: parseLocalTime(quiet.start) as number, end: parseLocalTime(quiet.end) as number };
  if (sendAt !== undefined) rules.sendAtLocal = parseLocalTime(sendAt);
  return rules;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export interface PlanDeps {
  analytics: Analytics;
  templates: TemplateEngine;
}

/**
 * How the batch's users are assigned. A fixed campaign: by the document's split, nothing stored
 * (assignment.ts). An adaptive one (bandit/sticky.ts): the fixed holdout decides control as for any
 * campaign; a user already in a variant keeps the variant of their first treated outcome row (the
 * durable record, read once per batch), and a new user is laid over the current epoch's weights.
 */
async function assigner(analytics: Analytics, campaign: StoredCampaign, deliveries: readonly Delivery[]): Promise<(userId: string) => Assignment> {
  const split = documentSplit(campaign.document);
  if (campaign.document.adaptive === undefined) return (userId) => assign(campaign.id, userId, split);
  const epochs = splitHistory(campaign);
  const firsts = await firstVariants(
    analytics,
    campaign.app_id,
    campaign.id,
    deliveries.map((d) => d.user_id),
  );
  return (userId) => {
    const a = assignAdaptive(campaign.id, userId, split.holdout, epochs, epochs.length - 1);
    const first = firsts.get(userId);
    // A variant the document no longer has (an edit removed it) is not kept.
    if (a.group === 'control' || first === undefined || first > split.weights.length) return a;
    return { group: 'variant', variant: first - 1 };
  };
}

/** The outcome rows and actions of one batch of a campaign's deliveries. */
export async function planDeliveries(
  deps: PlanDeps,
  campaign: StoredCampaign,
  settings: CampaignSettings,
  deliveries: readonly Delivery[],
): Promise<DeliveryPlan> {
  const doc = campaign.document;
  const templates = variantTemplates(doc);
  const assignOf = await assigner(deps.analytics, campaign, deliveries);
  const outcomes: OutcomeRow[] = [];
  const treated: { d: Delivery; variant: number; inv_id: number }[] = [];
  for (const d of deliveries) {
    const inv_id = runInvId(campaign.app_id, campaign.id, d.run_key);
    const base = { campaign_id: campaign.id, inv_id, user_id: d.user_id, trigger: d.trigger, at: d.at, reason: '' };
    const a = assignOf(d.user_id);
    if (a.group === 'control') outcomes.push({ ...base, variant: 0, action_id: 0, outcome: 'control' });
    else treated.push({ d, variant: a.variant, inv_id });
  }
  const facts = await loadUserFacts(
    deps.analytics,
    campaign.app_id,
    treated.map((t) => t.d.user_id),
  );
  const records = new CatalogRecords();
  const load = catalogLoader(deps.analytics, campaign.app_id);
  const caps = capsOf(campaign, settings);
  const rules = localRules(campaign);
  const actions: CampaignAction[] = [];
  // One render pass per variant over its users (catalog loads batched across them).
  for (let v = 0; v < templates.length; v++) {
    const template = templates[v] as ActionTemplate;
    const action_id = campaign.action_ids[v] as number;
    const group = treated.filter((t) => t.variant === v);
    if (group.length === 0) continue;
    const data: TemplateData[] = group.map(({ d }) => {
      const f = facts.get(d.user_id);
      const trigger: TemplateData['trigger'] = { kind: d.trigger, time: new Date(d.at).toISOString() };
      if (d.event) trigger.event = d.event.name;
      return { user: userScope(d.user_id, f?.record, f?.facts), trigger, ...(d.event ? { event: d.event.props } : {}) };
    });
    const rendered = await deps.templates.renderAll(deps.templates.compile(template.content), data, load, records);
    group.forEach(({ d, inv_id }, i) => {
      const row = { campaign_id: campaign.id, inv_id, user_id: d.user_id, trigger: d.trigger, at: d.at, variant: v + 1, action_id };
      const r = rendered[i] as (typeof rendered)[number];
      if (r.status === 'skipped') return void outcomes.push({ ...row, outcome: 'skipped', reason: r.reason });
      const f = facts.get(d.user_id);
      const { zone } = userZone(text(f?.record?.timezone), text(f?.facts?.tz));
      const availableMs = availableAt(zone, d.at, rules);
      const parsed = actionFor(template, { userId: d.user_id, content: r.content, inv_id, action_id, createdAtMs: availableMs });
      if (!parsed.ok) {
        const first = parsed.reasons[0];
        return void outcomes.push({ ...row, outcome: 'skipped', reason: `action_invalid: ${first ? `${first.path} ${first.message}` : 'refused'}` });
      }
      outcomes.push({ ...row, outcome: 'requested', reason: '' });
      const action: CampaignAction = { ...parsed.value, inv_id, action_id };
      if (caps) action.caps = caps;
      if (availableMs > d.at) action.available_at = new Date(availableMs).toISOString();
      actions.push(action);
    });
  }
  return { outcomes, actions };
}

/** `actions.requested` messages of at most MAX_ACTIONS_PER_CREATE actions each, source `campaign:<id>`, with their action counts. */
export function actionMessages(appId: string, campaignId: string, actions: readonly CampaignAction[]): { message: OutgoingMessage; actions: number }[] {
  const out: { message: OutgoingMessage; actions: number }[] = [];
  for (let i = 0; i < actions.length; i += MAX_ACTIONS_PER_CREATE) {
    const part = actions.slice(i, i + MAX_ACTIONS_PER_CREATE);
    out.push({ message: actionRequestMessage(appId, part, { source: `campaign:${campaignId}` }), actions: part.length });
  }
  return out;
}
