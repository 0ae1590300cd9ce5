import { checked, refused, type Checked } from '@evp/core';
import { at, checkDuration, isObject, jsonType, onlyKeys, parseDuration, parseTimestamp, stringAt, validateDefinition } from '@evp/segment-language';
import { checkActionTemplate, checkVariantAction, type TemplateCheck } from './action-template';
import { CAMPAIGN_LIMITS, TRIGGER_KINDS, type CampaignDocument } from './document';
import { checkEventCondition } from './event-conditions';
import { parseLocalTime } from './local-time';
import { campaignReasons, type CampaignReasons } from './rules';
import type { TemplateEngine } from './templates';
import type { TemplateScope } from './template-variables';

export interface CampaignValidationContext {
  /** Whether the app has this segment: e.g. the app's saved segments, listed once before validating. */
  segmentExists: (id: string) => boolean;
  templates: TemplateEngine;
}

const KEYS = [
  'name',
  'trigger',
  'action',
  'variants',
  'holdout',
  'caps',
  'quiet_hours',
  'send_at_local',
  'goal',
  'start_at',
  'end_at',
  'rate_per_second',
  'sample_size',
  'min_effect',
  'adaptive',
];

/**
 * Unknown JSON → a campaign document (docs/campaigns.md), or every problem found, each with its JSON
 * path from the root (`$.trigger.event.where[0].op`) and rule (CAMPAIGN_RULES; inside event
 * conditions the segment language's, inside actions the action store's).
 */
export function validateCampaign(json: unknown, ctx: CampaignValidationContext): Checked<CampaignDocument> {
  const reasons = campaignReasons();
  if (!isObject(json)) {
    reasons.add('$', 'type', `a campaign must be a JSON object, got ${jsonType(json)}`);
    return refused(reasons.list);
  }
  onlyKeys(reasons, '$', json, KEYS, 'a campaign');
  const name = stringAt(reasons, '$', json, 'name');
  if (name !== undefined && name.length > CAMPAIGN_LIMITS.nameLength)
    reasons.add('$.name', 'range', `name has at most ${CAMPAIGN_LIMITS.nameLength} characters`);
  const check: TemplateCheck = { templates: ctx.templates, scope: checkTrigger(reasons, json.trigger, ctx) };
  const baseReasons = checkActionTemplate(reasons, json.action, check);
  if (json.variants !== undefined) checkVariants(reasons, json.variants, json.action, baseReasons, check);
  if (json.holdout !== undefined) checkNumber(reasons, '$.holdout', json.holdout, (n) => n >= 0 && n < 1, 'a fraction from 0 up to (not including) 1');
  if (json.caps !== undefined) checkCaps(reasons, json.caps);
  checkLocalTimes(reasons, json.quiet_hours, json.send_at_local);
  if (json.goal !== undefined) checkGoal(reasons, json.goal);
  checkWindow(reasons, json.start_at, json.end_at);
  if (json.rate_per_second !== undefined) {
    const max = CAMPAIGN_LIMITS.maxRatePerSecond;
    checkNumber(reasons, '$.rate_per_second', json.rate_per_second, (n) => n > 0 && n <= max, `more than 0 and at most ${max}`);
  }
  if (json.sample_size !== undefined) {
    checkNumber(
      reasons,
      '$.sample_size',
      json.sample_size,
      (n) => Number.isInteger(n) && n >= 2 && n <= CAMPAIGN_LIMITS.maxSampleSize,
      `a whole number of users from 2 to ${CAMPAIGN_LIMITS.maxSampleSize}`,
    );
  }
  if (json.min_effect !== undefined) {
    checkNumber(reasons, '$.min_effect', json.min_effect, (n) => n > 0 && n < 1, 'an absolute uplift of the conversion rate, more than 0 and less than 1');
    if (json.goal === undefined) reasons.add('$.goal', 'required', 'min_effect needs a goal: it is an uplift of the goal’s conversion rate');
  }
  if (json.adaptive !== undefined) checkAdaptive(reasons, json);
  if (reasons.list.length > 0) return refused(reasons.list);
  // A copy: the caller's object may change later, the validated document must not.
  return checked(structuredClone(json) as unknown as CampaignDocument);
}

/** Opt-in adaptive allocation: needs a goal to learn from and two variants to choose between. */
function checkAdaptive(reasons: CampaignReasons, json: Record<string, unknown>): void {
  const adaptive = json.adaptive;
  if (!isObject(adaptive)) {
    reasons.add('$.adaptive', 'type', `adaptive must be an object, got ${jsonType(adaptive)}`);
    return;
  }
  onlyKeys(reasons, '$.adaptive', adaptive, ['floor'], 'adaptive');
  const variants = Array.isArray(json.variants) ? json.variants.length : 0;
  if (variants < 2) reasons.add('$.variants', 'required', 'adaptive allocation needs at least two variants to choose between');
  if (json.goal === undefined) reasons.add('$.goal', 'required', 'adaptive allocation needs a goal: it learns from the goal’s conversion');
  if (adaptive.floor !== undefined) {
    const most = variants >= 2 ? 1 / variants : 0.5;
    checkNumber(
      reasons,
      '$.adaptive.floor',
      adaptive.floor,
      (n) => n > 0 && n <= most,
      `a share of the treated traffic, more than 0 and at most 1/variants (${most})`,
    );
  }
}

function checkNumber(reasons: CampaignReasons, path: string, value: unknown, fits: (n: number) => boolean, expected: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) reasons.add(path, 'type', `must be a number (${expected}), got ${jsonType(value)}`);
  else if (!fits(value)) reasons.add(path, 'range', `must be ${expected}, got ${value}`);
}

function checkSegment(reasons: CampaignReasons, path: string, node: Record<string, unknown>, key: string, ctx: CampaignValidationContext): void {
  const id = stringAt(reasons, path, node, key);
  if (id !== undefined && !ctx.segmentExists(id)) reasons.add(at(path, key), 'unknown_segment', `no segment ${id} in this app`);
}

/** `$.trigger`; gives what its templates may read (the event, for an event trigger). */
function checkTrigger(reasons: CampaignReasons, value: unknown, ctx: CampaignValidationContext): TemplateScope {
  const path = '$.trigger';
  const shapes = '{"segment_entry": ID}, {"event": CONDITION}, {"schedule": {"at"|"every": …}, "segment": ID} or {"api": true}';
  if (!isObject(value)) {
    reasons.add(path, value === undefined ? 'required' : 'type', `trigger must be one of ${shapes}, got ${jsonType(value)}`);
    return {};
  }
  const kinds = TRIGGER_KINDS.filter((k) => Object.hasOwn(value, k));
  if (kinds.length !== 1) {
    reasons.add(path, 'trigger_kind', `a trigger is exactly one of ${shapes}; this one has ${kinds.length === 0 ? 'none of their keys' : kinds.join(' and ')}`);
    return {};
  }
  switch (kinds[0]) {
    case 'segment_entry':
      onlyKeys(reasons, path, value, ['segment_entry'], 'a segment_entry trigger');
      checkSegment(reasons, path, value, 'segment_entry', ctx);
      return {};
    case 'event': {
      onlyKeys(reasons, path, value, ['event'], 'an event trigger');
      const why = 'a trigger acts on each matching event: for a count or a window, define a segment and trigger on segment_entry';
      const event = checkEventCondition(reasons, at(path, 'event'), value.event, { refused: { count: why, within: why } });
      return event === undefined ? {} : { event };
    }
    case 'schedule':
      onlyKeys(reasons, path, value, ['schedule', 'segment'], 'a schedule trigger');
      checkSchedule(reasons, at(path, 'schedule'), value.schedule);
      checkSegment(reasons, path, value, 'segment', ctx);
      return {};
    default:
      onlyKeys(reasons, path, value, ['api'], 'an api trigger');
      if (value.api !== true) reasons.add(at(path, 'api'), 'type', `api must be true, got ${JSON.stringify(value.api)}`);
      return {};
  }
}

function checkSchedule(reasons: CampaignReasons, path: string, value: unknown): void {
  if (!isObject(value)) return reasons.add(path, 'type', `schedule must be {"at": RFC3339} or {"every": DURATION}, got ${jsonType(value)}`);
  onlyKeys(reasons, path, value, ['at', 'every'], 'a schedule');
  if (value.at !== undefined && value.every !== undefined)
    return reasons.add(at(path, 'every'), 'one_of', 'a schedule runs once (at) or repeatedly (every), not both');
  if (value.at !== undefined) {
    checkTimestamp(reasons, at(path, 'at'), value.at);
    return;
  }
  if (value.every === undefined) return reasons.add(path, 'required', 'schedule needs at (an RFC 3339 instant) or every (an ISO 8601 duration)');
  checkDuration(reasons, at(path, 'every'), value.every);
  const d = typeof value.every === 'string' ? parseDuration(value.every) : undefined;
  if (typeof d === 'object' && d.months === 0 && d.millis < CAMPAIGN_LIMITS.minEveryMs) {
    reasons.add(at(path, 'every'), 'range', `a schedule repeats at most every hour (PT1H): each run reads the segment's members`);
  }
}

/** An RFC 3339 timestamp at `path` → epoch ms. */
function checkTimestamp(reasons: CampaignReasons, path: string, value: unknown): number | undefined {
  const ms = typeof value === 'string' ? parseTimestamp(value) : `must be an RFC 3339 timestamp string, got ${jsonType(value)}`;
  if (typeof ms === 'number') return ms;
  reasons.add(path, typeof value === 'string' ? 'timestamp' : 'type', ms);
  return undefined;
}

function checkWindow(reasons: CampaignReasons, start: unknown, end: unknown): void {
  const from = start === undefined ? undefined : checkTimestamp(reasons, '$.start_at', start);
  const to = end === undefined ? undefined : checkTimestamp(reasons, '$.end_at', end);
  if (from !== undefined && to !== undefined && to <= from) reasons.add('$.end_at', 'window_order', 'end_at must be after start_at');
}

function checkVariants(
  reasons: CampaignReasons,
  value: unknown,
  base: unknown,
  baseReasons: Parameters<typeof checkVariantAction>[4],
  check: TemplateCheck,
): void {
  const path = '$.variants';
  if (!Array.isArray(value)) return reasons.add(path, 'type', `variants must be an array of {"weight", "action"}, got ${jsonType(value)}`);
  if (value.length === 0) return reasons.add(path, 'min_items', 'give at least one variant, or leave variants out (the action is then the only one)');
  if (value.length > CAMPAIGN_LIMITS.variants) return reasons.add(path, 'max_items', `at most ${CAMPAIGN_LIMITS.variants} variants`);
  value.forEach((v, i) => {
    const here = at(path, i);
    if (!isObject(v)) return reasons.add(here, 'type', `a variant must be an object {"weight", "action"}, got ${jsonType(v)}`);
    onlyKeys(reasons, here, v, ['weight', 'action'], 'a variant');
    if (v.weight === undefined) reasons.add(at(here, 'weight'), 'required', 'weight is required (relative to the other variants)');
    else checkNumber(reasons, at(here, 'weight'), v.weight, (n) => n > 0, 'more than 0 (relative to the other variants)');
    checkVariantAction(reasons, i, v.action, base, baseReasons, check);
  });
}

function checkCaps(reasons: CampaignReasons, value: unknown): void {
  const path = '$.caps';
  if (!isObject(value)) return reasons.add(path, 'type', `caps must be an object {"per_user": {"max", "within"}}, got ${jsonType(value)}`);
  onlyKeys(reasons, path, value, ['per_user', 'ignore_app_cap'], 'caps');
  if (value.ignore_app_cap !== undefined && typeof value.ignore_app_cap !== 'boolean') {
    reasons.add(at(path, 'ignore_app_cap'), 'type', `ignore_app_cap must be true or false, got ${jsonType(value.ignore_app_cap)}`);
  }
  const perUser = value.per_user;
  if (perUser === undefined) return;
  const here = at(path, 'per_user');
  if (!isObject(perUser)) return reasons.add(here, 'type', `per_user must be {"max": N, "within": DURATION}, got ${jsonType(perUser)}`);
  onlyKeys(reasons, here, perUser, ['max', 'within'], 'per_user');
  const max = CAMPAIGN_LIMITS.maxPerUser;
  if (perUser.max === undefined) reasons.add(at(here, 'max'), 'required', 'max is required: actions per user within the window');
  else checkNumber(reasons, at(here, 'max'), perUser.max, (n) => Number.isInteger(n) && n >= 1 && n <= max, `an integer from 1 to ${max}`);
  if (perUser.within === undefined) reasons.add(at(here, 'within'), 'required', 'within is required: the window, an ISO 8601 duration such as P7D');
  else checkDuration(reasons, at(here, 'within'), perUser.within);
}

/** `HH:MM` at `path` → minutes after midnight. */
function localTime(reasons: CampaignReasons, path: string, value: unknown): number | undefined {
  if (typeof value !== 'string') {
    reasons.add(path, value === undefined ? 'required' : 'type', `must be a local time "HH:MM", got ${jsonType(value)}`);
    return undefined;
  }
  const minutes = parseLocalTime(value);
  if (minutes === undefined) reasons.add(path, 'local_time', `${JSON.stringify(value)} is not a local time HH:MM (00:00–23:59)`);
  return minutes;
}

function checkLocalTimes(reasons: CampaignReasons, quiet: unknown, sendAt: unknown): void {
  const send = sendAt === undefined ? undefined : localTime(reasons, '$.send_at_local', sendAt);
  if (quiet === undefined) return;
  const path = '$.quiet_hours';
  if (!isObject(quiet)) return reasons.add(path, 'type', `quiet_hours must be {"start": "HH:MM", "end": "HH:MM"}, got ${jsonType(quiet)}`);
  onlyKeys(reasons, path, quiet, ['start', 'end'], 'quiet_hours');
  const start = localTime(reasons, at(path, 'start'), quiet.start);
  const end = localTime(reasons, at(path, 'end'), quiet.end);
  if (start === undefined || end === undefined) return;
  if (start === end) return reasons.add(at(path, 'end'), 'quiet_hours', 'start and end are the same time: quiet hours would be empty');
  const inside = start < end ? send !== undefined && send >= start && send < end : send !== undefined && (send >= start || send < end);
  if (inside) {
    reasons.add(
      '$.send_at_local',
      'quiet_hours',
      `${String(sendAt)} is inside quiet hours ${String(quiet.start)}–${String(quiet.end)}: no action would be sent then`,
    );
  }
}

/**
 * `goal.value`: a numeric property of the goal's event (`cart_price`, `items[].price`) whose amount
 * the report averages per user. Checked as the segment language checks a `sum` aggregate of it.
 */
function checkGoalValue(reasons: CampaignReasons, goal: Record<string, unknown>): void {
  if (typeof goal.value !== 'string') {
    reasons.add('$.goal.value', 'type', `must be the name of a numeric property of the goal's event, got ${jsonType(goal.value)}`);
    return;
  }
  const r = validateDefinition({ aggregate: { event: goal.event, prop: goal.value, fn: 'sum' }, op: 'gte', value: 0 }, { definitionOf: () => undefined });
  if (!r.ok) for (const p of r.reasons) if (p.path === '$.aggregate.prop') reasons.list.push({ ...p, path: '$.goal.value' });
}

function checkGoal(reasons: CampaignReasons, value: unknown): void {
  const why = 'a goal converts at the first matching event after the action: it takes no count';
  checkEventCondition(reasons, '$.goal', value, { refused: { count: why }, ownKeys: ['within', 'value'] });
  if (!isObject(value) || !Object.hasOwn(value, 'event')) return;
  if (value.value !== undefined) checkGoalValue(reasons, value);
  if (value.within === undefined)
    reasons.add('$.goal.within', 'required', 'within is required: the attribution window after the action, an ISO 8601 duration such as P3D');
  else checkDuration(reasons, '$.goal.within', value.within);
}
