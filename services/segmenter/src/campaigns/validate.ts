import { at, checkDuration, type DefinitionProblem, isObject, jsonType, onlyKeys, parseDuration, parseTimestamp, stringAt } from '@evp/segment-language';
import { checkActionTemplate, checkVariantAction, type TemplateCheck } from './action-template';
import { CAMPAIGN_LIMITS, TRIGGER_KINDS, type CampaignDocument } from './document';
import { checkEventCondition } from './event-conditions';
import { parseLocalTime } from './local-time';
import { campaignProblems, type CampaignProblems } from './rules';
import type { TemplateEngine } from './templates';
import type { TemplateScope } from './template-variables';

export interface CampaignValidationContext {
  /** Whether the app has this segment: e.g. the app's saved segments, listed once before validating. */
  segmentExists: (id: string) => boolean;
  templates: TemplateEngine;
}

export type CampaignValidation = { ok: true; campaign: CampaignDocument } | { ok: false; problems: DefinitionProblem[] };

const KEYS = ['name', 'trigger', 'action', 'variants', 'holdout', 'caps', 'quiet_hours', 'send_at_local', 'goal', 'start_at', 'end_at', 'rate_per_second'];

/**
 * Unknown JSON → a campaign document (docs/campaigns.md), or every problem found, each with its JSON
 * path from the root (`$.trigger.event.where[0].op`) and rule (CAMPAIGN_RULES; inside event
 * conditions the segment language's, inside actions the action store's).
 */
export function validateCampaign(json: unknown, ctx: CampaignValidationContext): CampaignValidation {
  const problems = campaignProblems();
  if (!isObject(json)) {
    problems.add('$', 'type', `a campaign must be a JSON object, got ${jsonType(json)}`);
    return { ok: false, problems: problems.list };
  }
  onlyKeys(problems, '$', json, KEYS, 'a campaign');
  const name = stringAt(problems, '$', json, 'name');
  if (name !== undefined && name.length > CAMPAIGN_LIMITS.nameLength)
    problems.add('$.name', 'range', `name has at most ${CAMPAIGN_LIMITS.nameLength} characters`);
  const check: TemplateCheck = { templates: ctx.templates, scope: checkTrigger(problems, json.trigger, ctx) };
  const baseIssues = checkActionTemplate(problems, json.action, check);
  if (json.variants !== undefined) checkVariants(problems, json.variants, json.action, baseIssues, check);
  if (json.holdout !== undefined) checkNumber(problems, '$.holdout', json.holdout, (n) => n >= 0 && n < 1, 'a fraction from 0 up to (not including) 1');
  if (json.caps !== undefined) checkCaps(problems, json.caps);
  checkLocalTimes(problems, json.quiet_hours, json.send_at_local);
  if (json.goal !== undefined) checkGoal(problems, json.goal);
  checkWindow(problems, json.start_at, json.end_at);
  if (json.rate_per_second !== undefined) {
    const max = CAMPAIGN_LIMITS.maxRatePerSecond;
    checkNumber(problems, '$.rate_per_second', json.rate_per_second, (n) => n > 0 && n <= max, `more than 0 and at most ${max}`);
  }
  if (problems.list.length > 0) return { ok: false, problems: problems.list };
  // A copy: the caller's object may change later, the validated document must not.
  return { ok: true, campaign: structuredClone(json) as unknown as CampaignDocument };
}

function checkNumber(problems: CampaignProblems, path: string, value: unknown, fits: (n: number) => boolean, expected: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) problems.add(path, 'type', `must be a number (${expected}), got ${jsonType(value)}`);
  else if (!fits(value)) problems.add(path, 'range', `must be ${expected}, got ${value}`);
}

function checkSegment(problems: CampaignProblems, path: string, node: Record<string, unknown>, key: string, ctx: CampaignValidationContext): void {
  const id = stringAt(problems, path, node, key);
  if (id !== undefined && !ctx.segmentExists(id)) problems.add(at(path, key), 'unknown_segment', `no segment ${id} in this app`);
}

/** `$.trigger`; gives what its templates may read (the event, for an event trigger). */
function checkTrigger(problems: CampaignProblems, value: unknown, ctx: CampaignValidationContext): TemplateScope {
  const path = '$.trigger';
  const shapes = '{"segment_entry": ID}, {"event": CONDITION}, {"schedule": {"at"|"every": …}, "segment": ID} or {"api": true}';
  if (!isObject(value)) {
    problems.add(path, value === undefined ? 'required' : 'type', `trigger must be one of ${shapes}, got ${jsonType(value)}`);
    return {};
  }
  const kinds = TRIGGER_KINDS.filter((k) => Object.hasOwn(value, k));
  if (kinds.length !== 1) {
    problems.add(
      path,
      'trigger_kind',
      `a trigger is exactly one of ${shapes}; this one has ${kinds.length === 0 ? 'none of their keys' : kinds.join(' and ')}`,
    );
    return {};
  }
  switch (kinds[0]) {
    case 'segment_entry':
      onlyKeys(problems, path, value, ['segment_entry'], 'a segment_entry trigger');
      checkSegment(problems, path, value, 'segment_entry', ctx);
      return {};
    case 'event': {
      onlyKeys(problems, path, value, ['event'], 'an event trigger');
      const why = 'a trigger acts on each matching event: for a count or a window, define a segment and trigger on segment_entry';
      const event = checkEventCondition(problems, at(path, 'event'), value.event, { refused: { count: why, within: why } });
      return event === undefined ? {} : { event };
    }
    case 'schedule':
      onlyKeys(problems, path, value, ['schedule', 'segment'], 'a schedule trigger');
      checkSchedule(problems, at(path, 'schedule'), value.schedule);
      checkSegment(problems, path, value, 'segment', ctx);
      return {};
    default:
      onlyKeys(problems, path, value, ['api'], 'an api trigger');
      if (value.api !== true) problems.add(at(path, 'api'), 'type', `api must be true, got ${JSON.stringify(value.api)}`);
      return {};
  }
}

function checkSchedule(problems: CampaignProblems, path: string, value: unknown): void {
  if (!isObject(value)) return problems.add(path, 'type', `schedule must be {"at": RFC3339} or {"every": DURATION}, got ${jsonType(value)}`);
  onlyKeys(problems, path, value, ['at', 'every'], 'a schedule');
  if (value.at !== undefined && value.every !== undefined)
    return problems.add(at(path, 'every'), 'one_of', 'a schedule runs once (at) or repeatedly (every), not both');
  if (value.at !== undefined) {
    checkTimestamp(problems, at(path, 'at'), value.at);
    return;
  }
  if (value.every === undefined) return problems.add(path, 'required', 'schedule needs at (an RFC 3339 instant) or every (an ISO 8601 duration)');
  checkDuration(problems, at(path, 'every'), value.every);
  const d = typeof value.every === 'string' ? parseDuration(value.every) : undefined;
  if (typeof d === 'object' && d.months === 0 && d.millis < CAMPAIGN_LIMITS.minEveryMs) {
    problems.add(at(path, 'every'), 'range', `a schedule repeats at most every hour (PT1H): each run reads the segment's members`);
  }
}

/** An RFC 3339 timestamp at `path` → epoch ms. */
function checkTimestamp(problems: CampaignProblems, path: string, value: unknown): number | undefined {
  const ms = typeof value === 'string' ? parseTimestamp(value) : `must be an RFC 3339 timestamp string, got ${jsonType(value)}`;
  if (typeof ms === 'number') return ms;
  problems.add(path, typeof value === 'string' ? 'timestamp' : 'type', ms);
  return undefined;
}

function checkWindow(problems: CampaignProblems, start: unknown, end: unknown): void {
  const from = start === undefined ? undefined : checkTimestamp(problems, '$.start_at', start);
  const to = end === undefined ? undefined : checkTimestamp(problems, '$.end_at', end);
  if (from !== undefined && to !== undefined && to <= from) problems.add('$.end_at', 'window_order', 'end_at must be after start_at');
}

function checkVariants(
  problems: CampaignProblems,
  value: unknown,
  base: unknown,
  baseIssues: Parameters<typeof checkVariantAction>[4],
  check: TemplateCheck,
): void {
  const path = '$.variants';
  if (!Array.isArray(value)) return problems.add(path, 'type', `variants must be an array of {"weight", "action"}, got ${jsonType(value)}`);
  if (value.length === 0) return problems.add(path, 'min_items', 'give at least one variant, or leave variants out (the action is then the only one)');
  if (value.length > CAMPAIGN_LIMITS.variants) return problems.add(path, 'max_items', `at most ${CAMPAIGN_LIMITS.variants} variants`);
  value.forEach((v, i) => {
    const here = at(path, i);
    if (!isObject(v)) return problems.add(here, 'type', `a variant must be an object {"weight", "action"}, got ${jsonType(v)}`);
    onlyKeys(problems, here, v, ['weight', 'action'], 'a variant');
    if (v.weight === undefined) problems.add(at(here, 'weight'), 'required', 'weight is required (relative to the other variants)');
    else checkNumber(problems, at(here, 'weight'), v.weight, (n) => n > 0, 'more than 0 (relative to the other variants)');
    checkVariantAction(problems, i, v.action, base, baseIssues, check);
  });
}

function checkCaps(problems: CampaignProblems, value: unknown): void {
  const path = '$.caps';
  if (!isObject(value)) return problems.add(path, 'type', `caps must be an object {"per_user": {"max", "within"}}, got ${jsonType(value)}`);
  onlyKeys(problems, path, value, ['per_user', 'ignore_app_cap'], 'caps');
  if (value.ignore_app_cap !== undefined && typeof value.ignore_app_cap !== 'boolean') {
    problems.add(at(path, 'ignore_app_cap'), 'type', `ignore_app_cap must be true or false, got ${jsonType(value.ignore_app_cap)}`);
  }
  const perUser = value.per_user;
  if (perUser === undefined) return;
  const here = at(path, 'per_user');
  if (!isObject(perUser)) return problems.add(here, 'type', `per_user must be {"max": N, "within": DURATION}, got ${jsonType(perUser)}`);
  onlyKeys(problems, here, perUser, ['max', 'within'], 'per_user');
  const max = CAMPAIGN_LIMITS.maxPerUser;
  if (perUser.max === undefined) problems.add(at(here, 'max'), 'required', 'max is required: actions per user within the window');
  else checkNumber(problems, at(here, 'max'), perUser.max, (n) => Number.isInteger(n) && n >= 1 && n <= max, `an integer from 1 to ${max}`);
  if (perUser.within === undefined) problems.add(at(here, 'within'), 'required', 'within is required: the window, an ISO 8601 duration such as P7D');
  else checkDuration(problems, at(here, 'within'), perUser.within);
}

/** `HH:MM` at `path` → minutes after midnight. */
function localTime(problems: CampaignProblems, path: string, value: unknown): number | undefined {
  if (typeof value !== 'string') {
    problems.add(path, value === undefined ? 'required' : 'type', `must be a local time "HH:MM", got ${jsonType(value)}`);
    return undefined;
  }
  const minutes = parseLocalTime(value);
  if (minutes === undefined) problems.add(path, 'local_time', `${JSON.stringify(value)} is not a local time HH:MM (00:00–23:59)`);
  return minutes;
}

function checkLocalTimes(problems: CampaignProblems, quiet: unknown, sendAt: unknown): void {
  const send = sendAt === undefined ? undefined : localTime(problems, '$.send_at_local', sendAt);
  if (quiet === undefined) return;
  const path = '$.quiet_hours';
  if (!isObject(quiet)) return problems.add(path, 'type', `quiet_hours must be {"start": "HH:MM", "end": "HH:MM"}, got ${jsonType(quiet)}`);
  onlyKeys(problems, path, quiet, ['start', 'end'], 'quiet_hours');
  const start = localTime(problems, at(path, 'start'), quiet.start);
  const end = localTime(problems, at(path, 'end'), quiet.end);
  if (start === undefined || end === undefined) return;
  if (start === end) return problems.add(at(path, 'end'), 'quiet_hours', 'start and end are the same time: quiet hours would be empty');
  const inside = start < end ? send !== undefined && send >= start && send < end : send !== undefined && (send >= start || send < end);
  if (inside) {
    problems.add(
      '$.send_at_local',
      'quiet_hours',
      `${String(sendAt)} is inside quiet hours ${String(quiet.start)}–${String(quiet.end)}: no action would be sent then`,
    );
  }
}

function checkGoal(problems: CampaignProblems, value: unknown): void {
  const why = 'a goal converts at the first matching event after the action: it takes no count';
  checkEventCondition(problems, '$.goal', value, { refused: { count: why }, ownKeys: ['within'] });
  if (!isObject(value) || !Object.hasOwn(value, 'event')) return;
  if (value.within === undefined)
    problems.add('$.goal.within', 'required', 'within is required: the attribution window after the action, an ISO 8601 duration such as P3D');
  else checkDuration(problems, '$.goal.within', value.within);
}
