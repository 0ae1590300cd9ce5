import type { Checked, RejectionReason } from '@evp/core';
import { jsonPath, NEVER_EXPIRES, parseNewAction, type NewAction } from '@evp/actions';
import { DateTime, Duration } from 'luxon';
import { at, checkDuration, isObject, jsonType } from '@evp/segment-language';
import type { ActionTemplate, CampaignDocument } from './document';
import { campaignReasons, type CampaignReasons } from './rules';
import type { TemplateScope } from './template-variables';
import { TEMPLATE_FIELDS, type Content, type TemplateEngine } from './templates';

/**
 * A campaign's action template is held to the action store's own rules (packages/actions,
 * parseNewAction): the template is checked as the action it stands for, with a placeholder user and
 * (for `expires_after`) a never-expiring `expired_at`, so a field the store would refuse is refused
 * when the campaign is saved, with the store's rule and message. The actions rendered from it are
 * checked again, with their real content and expiry (actionFor), since a rendered title can outgrow
 * the store's limit.
 */

/** Keys the campaign sets on every action it creates. */
const SET_BY_CAMPAIGN: Readonly<Record<string, string>> = {
  user_id: 'the campaign sets user_id: each user of its audience',
  inv_id: 'the campaign sets inv_id: one per campaign run',
  action_id: 'the campaign sets action_id: one per variant',
};

const PLACEHOLDER_USER = 'campaign-template';

export interface TemplateCheck {
  templates: TemplateEngine;
  scope: TemplateScope;
}

/**
 * Every problem of a template's fields but its templates, paths under `prefix` (`['action']` →
 * `$.action.…`): the campaign's own keys and expiry, then the store's rules.
 */
function fieldReasons(template: Record<string, unknown>, prefix: readonly (string | number)[]): RejectionReason[] {
  const reasons = campaignReasons();
  const path = jsonPath(prefix);
  const fields = { ...template };
  for (const [key, why] of Object.entries(SET_BY_CAMPAIGN)) {
    if (!Object.hasOwn(fields, key)) continue;
    reasons.add(at(path, key), 'unknown_key', why);
    delete fields[key];
  }
  const after = fields.expires_after;
  delete fields.expires_after;
  if (after !== undefined && fields.expired_at !== undefined) {
    reasons.add(at(path, 'expires_after'), 'one_of', 'give expired_at (an instant) or expires_after (a duration), not both');
  } else if (after === undefined && fields.expired_at === undefined) {
    reasons.add(at(path, 'expired_at'), 'required', 'give expired_at (an instant; 0001-01-01T00:00:00Z = never) or expires_after (an ISO 8601 duration)');
  }
  if (after !== undefined) checkDuration(reasons, at(path, 'expires_after'), after);
  const r = parseNewAction({ ...fields, user_id: PLACEHOLDER_USER, expired_at: fields.expired_at ?? NEVER_EXPIRES }, prefix);
  return r.ok ? reasons.list : [...reasons.list, ...r.reasons];
}

function checkContentTemplates(reasons: CampaignReasons, path: string, content: unknown, check: TemplateCheck): void {
  if (!isObject(content)) return;
  for (const field of TEMPLATE_FIELDS) {
    const source = content[field];
    if (typeof source === 'string') reasons.list.push(...check.templates.check(at(at(path, 'content'), field), source, check.scope));
  }
}

/**
 * `$.action`: the campaign's keys, the store's rules, the templates. Gives its reasons but the
 * templates', so that its variants' same reasons are not repeated.
 */
export function checkActionTemplate(reasons: CampaignReasons, value: unknown, check: TemplateCheck): RejectionReason[] {
  const path = '$.action';
  if (!isObject(value)) {
    reasons.add(
      path,
      value === undefined ? 'required' : 'type',
      `action must be an object: the fields of POST /v1/actions less user_id, got ${jsonType(value)}`,
    );
    return [];
  }
  const actionReasons = fieldReasons(value, ['action']);
  reasons.list.push(...actionReasons);
  checkContentTemplates(reasons, path, value.content, check);
  return actionReasons;
}

/** A variant's action merged over the campaign's: fields replace, content merges by field, either expiry replaces both. */
export function mergeVariant<T extends object>(base: T, variant: object): T {
  const from = base as Record<string, unknown>;
  const over = variant as Record<string, unknown>;
  const merged: Record<string, unknown> = { ...from };
  if (Object.hasOwn(over, 'expired_at') || Object.hasOwn(over, 'expires_after')) {
    delete merged.expired_at;
    delete merged.expires_after;
  }
  Object.assign(merged, over);
  if (isObject(from.content) && isObject(over.content)) merged.content = { ...from.content, ...over.content };
  return merged as T;
}

/**
 * `$.variants[i].action`, merged over the campaign's action (`base`, when it is an object): the
 * merged action must pass the store's rules; reasons the campaign's action has already (`baseReasons`)
 * are reported there only.
 */
export function checkVariantAction(
  reasons: CampaignReasons,
  index: number,
  value: unknown,
  base: unknown,
  baseReasons: RejectionReason[],
  check: TemplateCheck,
): void {
  const path = `$.variants[${index}].action`;
  if (!isObject(value))
    return reasons.add(
      path,
      value === undefined ? 'required' : 'type',
      `a variant's action must be an object (fields replacing the campaign's action's), got ${jsonType(value)}`,
    );
  if (value.content !== undefined && !isObject(value.content))
    return reasons.add(at(path, 'content'), 'type', `content must be an object {title, body}, got ${jsonType(value.content)}`);
  if (!isObject(base)) return;
  const known = new Set(baseReasons.map((i) => `${i.path.slice('$.action'.length)} ${i.rule} ${i.message}`));
  for (const issue of fieldReasons(mergeVariant(base, value), ['variants', index, 'action'])) {
    if (!known.has(`${issue.path.slice(path.length)} ${issue.rule} ${issue.message}`)) reasons.list.push(issue);
  }
  checkContentTemplates(reasons, path, value.content, check);
}

/** The action template of each variant, in order (a campaign without variants has one: its action). */
export function variantTemplates(campaign: CampaignDocument): ActionTemplate[] {
  return campaign.variants?.map((v) => mergeVariant(campaign.action, v.action)) ?? [campaign.action];
}

/** `expired_at` of an action created at `createdAtMs`: the template's instant, or creation + `expires_after` (in UTC, calendar months). */
export function expiresAt(template: ActionTemplate, createdAtMs: number): string {
  if (template.expires_after === undefined) return template.expired_at ?? NEVER_EXPIRES;
  return DateTime.fromMillis(createdAtMs, { zone: 'utc' }).plus(Duration.fromISO(template.expires_after)).toISO() as string;
}

export interface ActionInstance {
  userId: string;
  /** The rendered title and body (templates.ts). */
  content: Content;
  inv_id: number;
  action_id: number;
  /** When the action is created (becomes available): `expires_after` counts from here. */
  createdAtMs: number;
}

/**
 * The action for one user, checked by the store's rules: not ok when the rendered content breaks
 * one (a title longer than the store's limit, say); the caller records the user as skipped.
 */
export function actionFor(template: ActionTemplate, instance: ActionInstance): Checked<NewAction> {
  return parseNewAction({
    user_id: instance.userId,
    type: template.type,
    render_method: template.render_method,
    delivery_mode: template.delivery_mode,
    content: instance.content,
    attr: template.attr ?? {},
    tags: template.tags ?? [],
    expired_at: expiresAt(template, instance.createdAtMs),
    inv_id: instance.inv_id,
    action_id: instance.action_id,
  });
}
