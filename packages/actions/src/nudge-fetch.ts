import { checked, refused, type Checked, type RejectionReason } from '@evp/core';
import {
  ACTION_TYPES,
  DELIVERY_MODES,
  NEVER_EXPIRES,
  RENDER_METHODS_BY_TYPE,
  type ActionRecord,
  type ActionType,
  type PullQuery,
  type RenderMethod,
} from './model';
import { expiryMs, parseIsoWithOffset } from './time';
import { LIMITS } from './validation';

/**
 * The single-user fetches of clients older than the SDK pull (docs/actions.md, "Older clients'
 * fetch"), mapped onto the store's pull: a fetch is the pulls of every dimension it covers (one-off
 * ones first, so that a one-off action is handed out exactly once, as by any pull), and its answer is
 * a bare JSON array in the shape the client decodes.
 *
 * - `GET /v1/nudge/sdk/{user_id}?render_method=…&render_page=…` (SDK key): CausalFoundry iOS
 *   0.4.3–1.2.3 (docs/clients/ios-older-and-utils.md, E). They decode `[BackendNudgeMainObject]`,
 *   and one element they cannot decode makes them drop the whole answer.
 * - `GET /nudge/sdk/get?subject_id=…&queued_at=…` (API key): the synthetic data generator
 *   (docs/clients/generator.md, 15).
 */

/** The render methods the older iOS clients know (`nd.render_method`) and can be asked for. */
export const OLDER_SDK_RENDER_METHODS = ['push_notification', 'in_app_message'] as const satisfies readonly RenderMethod[];

export interface OlderSdkFetch {
  user_id: string;
  /** The render methods asked for: one (the 0.9.5+ query) or both (0.4.3–0.5.3 send no query). */
  render_methods: readonly RenderMethod[];
  /** `render_page=<screen>` narrows to actions created with attr `render_page` = that screen. */
  attr?: Record<string, string>;
}

export interface GeneratorFetch {
  user_id: string;
  /** Epoch ms (fraction = microseconds) of `queued_at`: cached actions queued at or before it are left out. */
  queued_after?: number;
}

const reason = (path: string, rule: string, message: string): RejectionReason => ({ path, rule, message });

/** One query parameter: absent, or a single string (a repeated parameter is refused). */
function param(query: Record<string, unknown>, name: string, reasons: RejectionReason[]): string | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') {
    reasons.push(reason(`query.${name}`, 'type', `${name} must be given once, as a string`));
    return undefined;
  }
  return v;
}

function unknownParams(query: Record<string, unknown>, known: readonly string[], reasons: RejectionReason[]) {
  for (const k of Object.keys(query)) if (!known.includes(k)) reasons.push(reason(`query.${k}`, 'unknown_field', 'unknown query parameter'));
}

function userId(value: string | undefined, path: string, reasons: RejectionReason[]): string | undefined {
  if (value === undefined || value.length === 0) reasons.push(reason(path, value === undefined ? 'required' : 'min', 'a user id is required'));
  else if (value.length > LIMITS.userIdLength) reasons.push(reason(path, 'max', `at most ${LIMITS.userIdLength} characters`));
  else if (value === '*') reasons.push(reason(path, 'invalid', "this fetch serves one user; '*' needs the bulk pull with an API key"));
  else return value;
  return undefined;
}

/** `GET /v1/nudge/sdk/{user_id}`: the path's user id and the query. */
export function parseOlderSdkFetch(userIdParam: string, query: Record<string, unknown>): Checked<OlderSdkFetch> {
  const reasons: RejectionReason[] = [];
  unknownParams(query, ['render_method', 'render_page'], reasons);
  const user = userId(userIdParam, 'params.user_id', reasons);
  const rm = param(query, 'render_method', reasons);
  const page = param(query, 'render_page', reasons);
  let renderMethods: readonly RenderMethod[] = OLDER_SDK_RENDER_METHODS;
  if (rm !== undefined && rm !== '') {
    if ((OLDER_SDK_RENDER_METHODS as readonly string[]).includes(rm)) renderMethods = [rm as RenderMethod];
    else reasons.push(reason('query.render_method', 'enum', `expected one of ${OLDER_SDK_RENDER_METHODS.join(', ')}`));
  }
  if (page !== undefined && page.length > LIMITS.attrValueLength)
    reasons.push(reason('query.render_page', 'max', `at most ${LIMITS.attrValueLength} characters`));
  if (reasons.length > 0) return refused(reasons);
  // The automatic fetch sends `render_page=` (NudgeScreenType.None): any screen.
  return checked({ user_id: user as string, render_methods: renderMethods, ...(page ? { attr: { render_page: page } } : {}) });
}

/** `GET /nudge/sdk/get`: `subject_id` (the user) and `queued_at` (optional, RFC 3339 with offset). */
export function parseGeneratorFetch(query: Record<string, unknown>): Checked<GeneratorFetch> {
  const reasons: RejectionReason[] = [];
  unknownParams(query, ['subject_id', 'queued_at'], reasons);
  const user = userId(param(query, 'subject_id', reasons), 'query.subject_id', reasons);
  const queuedAt = param(query, 'queued_at', reasons);
  const after = queuedAt === undefined ? undefined : parseIsoWithOffset(queuedAt);
  if (queuedAt !== undefined && after === undefined) {
    reasons.push(reason('query.queued_at', 'format', 'must be an ISO 8601 timestamp with offset, e.g. 2025-03-04T10:02:11.504118Z'));
  }
  if (reasons.length > 0) return refused(reasons);
  return checked({ user_id: user as string, ...(after === undefined ? {} : { queued_after: after }) });
}

/** The store pulls a fetch stands for: one per (delivery mode, type, render method), one-off first. */
function pullsFor(userIdValue: string, renderMethods: readonly RenderMethod[], attr?: Record<string, string>): PullQuery[] {
  const out: PullQuery[] = [];
  for (const delivery_mode of DELIVERY_MODES) {
    for (const type of ACTION_TYPES as readonly ActionType[]) {
      for (const render_method of RENDER_METHODS_BY_TYPE[type]) {
        if (renderMethods.includes(render_method)) out.push({ user_id: userIdValue, type, render_method, delivery_mode, ...(attr ? { attr } : {}) });
      }
    }
  }
  return out;
}

export const olderSdkPulls = (f: OlderSdkFetch): PullQuery[] => pullsFor(f.user_id, f.render_methods, f.attr);

/** Every dimension: the generator asks for all of a user's actions. */
export const generatorPulls = (f: GeneratorFetch): PullQuery[] => pullsFor(f.user_id, ['push_notification', 'in_app_message', 'generic_message']);

/** What the older iOS clients decode (`BackendNudgeMainObject`, the fields the platform can fill). */
export interface OlderSdkNudge {
  ref: string;
  time: string;
  expire_at: string;
  nd: { type: string; message: { title: string; body: string; tags: string[] }; render_method: string };
}

/**
 * An action as the older iOS clients decode it. `expire_at` is whole seconds in UTC
 * (`ISO8601DateFormatter` reads no fraction: `2030-02-01T00:00:00Z`, cut to the second), or the Go
 * zero time for never, which the client checks for literally. `nd.render_method` is one these
 * clients know: only push_notification and in_app_message actions are fetched for them. No `cta` and
 * no `extra` (traits, item pairs): actions carry neither.
 */
export function toOlderSdkNudge(r: ActionRecord): OlderSdkNudge {
  const p = r.payload;
  return {
    ref: p.internal.ref,
    time: r.queued_at,
    expire_at: wholeSecondsUtc(p.internal.expired_at),
    nd: { type: p.type, message: { title: p.content.title, body: p.content.body, tags: [...p.tags] }, render_method: p.render_method },
  };
}

function wholeSecondsUtc(expiredAt: string): string {
  const ms = expiryMs(expiredAt);
  if (ms === null) return NEVER_EXPIRES;
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}

/** What the generator reads: `id` (echoed back as nudge_response `nudge_id`: the action's ref), `action`, `queued_at`. */
export interface GeneratorNudge {
  id: string;
  action: ActionRecord['payload'];
  queued_at: string;
}

export const toGeneratorNudge = (r: ActionRecord): GeneratorNudge => ({ id: r.payload.internal.ref, action: r.payload, queued_at: r.queued_at });

/** Microseconds since the epoch of a `queued_at` (exact for the store's six-digit format). */
export function queuedMicros(queuedAt: string): number {
  return Math.round((parseIsoWithOffset(queuedAt) as number) * 1000);
}
