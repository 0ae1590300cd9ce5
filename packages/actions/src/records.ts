import {
  ACTION_RESPONSES,
  FIRST_GENERATED_ID,
  emptyCounters,
  MAX_ERROR_DETAILS_BYTES,
  type ActionCounters,
  type ActionCaps,
  type ActionErrorReport,
  type ActionRecord,
  type ActionResponse,
  type ActionStats,
  type CreateResult,
  type NewAction,
} from './model';
import { expiryMs, formatMicros, parseIsoWithOffset, wholeSeconds } from './time';

/**
 * Pieces both adapters share, so the Redis and in-memory stores build byte-identical records and
 * the conformance suite can compare exact values.
 */

/** Identity of a stored action within its app: `<inv_id>:<action_id>:<user_id>` (ids are digits, so unambiguous). */
export const recordId = (invId: number, actionId: number, userId: string) => `${invId}:${actionId}:${userId}`;

export const actionRef = (invId: number, actionId: number) => `${invId}:${actionId}`;

/** Parses `<inv_id>:<action_id>` from `nudge_response.ref`. */
export function parseRef(ref: string): { inv_id: number; action_id: number } | undefined {
  const m = /^(\d{1,16}):(\d{1,16})$/.exec(ref);
  if (!m) return undefined;
  return { inv_id: Number(m[1]), action_id: Number(m[2]) };
}

export interface PreparedAction {
  rid: string;
  record: ActionRecord;
  /** Epoch ms (whole) at which the action stops being returned; null = never. */
  expiresAt: number | null;
  /** Epoch ms (whole) before which no pull returns it; null = at once (absent, or not after creation). */
  availableAt: number | null;
  caps: ActionCaps | undefined;
  result: CreateResult;
}

/** How many fresh ids a create call needs: one inv_id for the call if any action lacks one, plus one per missing action_id. */
export function idsNeeded(actions: readonly NewAction[]): number {
  const missingInv = actions.some((a) => a.inv_id === undefined) ? 1 : 0;
  return missingInv + actions.filter((a) => a.action_id === undefined).length;
}

/** Generated ids are `FIRST_GENERATED_ID + n - 1` for the n-th allocation of an app (n from 1). */
export const generatedId = (n: number) => FIRST_GENERATED_ID + n - 1;

/**
 * Builds records for a create call. `fresh` holds the generated ids (idsNeeded of them, in order):
 * the call's inv_id first, then one action_id per action without one.
 * Actions whose `expired_at` has passed, or is no later than their `available_at` (they could never
 * be pulled), come back with status `expired`; callers skip storing them.
 */
export function prepareActions(actions: readonly NewAction[], fresh: readonly number[], nowMs: number): PreparedAction[] {
  let next = 0;
  const take = () => {
    const id = fresh[next++];
    if (id === undefined) throw new Error('prepareActions: not enough generated ids');
    return id;
  };
  const callInv = actions.some((a) => a.inv_id === undefined) ? take() : undefined;
  const queuedAt = formatMicros(nowMs);
  const now = Math.floor(nowMs);
  return actions.map((a) => {
    // callInv is set whenever some action has no inv_id.
    const inv = a.inv_id ?? callInv!;
    const act = a.action_id ?? take();
    const exp = expiryMs(a.expired_at);
    const expiresAt = exp === null ? null : Math.floor(exp);
    const record: ActionRecord = {
      user_id: a.user_id,
      payload: {
        type: a.type,
        render_method: a.render_method,
        delivery_mode: a.delivery_mode,
        content: { body: a.content.body, title: a.content.title },
        attr: { ...a.attr },
        tags: [...a.tags],
        internal: {
          inv_id: inv,
          action_id: act,
          expired_at: wholeSeconds(a.expired_at),
          ref: actionRef(inv, act),
          ref_time: `${queuedAt}#${actionRef(inv, act)}`,
        },
      },
      error: null,
      queued_at: queuedAt,
    };
    const given = a.available_at === undefined ? undefined : parseIsoWithOffset(a.available_at);
    const availableAt = given === undefined || Math.floor(given) <= now ? null : Math.floor(given);
    const expired = expiresAt !== null && expiresAt <= (availableAt ?? now);
    return {
      rid: recordId(inv, act, a.user_id),
      record,
      expiresAt,
      availableAt,
      caps: a.caps,
      result: { status: expired ? 'expired' : 'created', user_id: a.user_id, inv_id: inv, action_id: act },
    };
  });
}

/** True when every pair of `filter` is among `attr`. */
export function attrMatches(attr: Record<string, string>, filter: Record<string, string> | undefined): boolean {
  if (!filter) return true;
  for (const [k, v] of Object.entries(filter)) {
    if (!Object.hasOwn(attr, k) || attr[k] !== v) return false;
  }
  return true;
}

/**
 * Counters are stored flat, as the Redis hash holds them: `created`, `delivered`, `expired`,
 * `r:<response>`, and the same per invocation as `<inv_id>|<counter>`. Null when there are none.
 */
export function statsFromFields(actionId: number, fields: Record<string, string | number>, lastErrors: ActionErrorReport[] = []): ActionStats | null {
  const names = Object.keys(fields);
  if (names.length === 0) return null;
  const totals = emptyCounters();
  const byInv = new Map<number, ActionCounters>();
  for (const field of names) {
    const n = Number(fields[field]);
    const bar = field.indexOf('|');
    if (bar < 0) {
      addCounter(totals, field, n);
    } else {
      const inv = Number(field.slice(0, bar));
      let c = byInv.get(inv);
      if (!c) byInv.set(inv, (c = emptyCounters()));
      addCounter(c, field.slice(bar + 1), n);
    }
  }
  const by_inv_id: Record<string, ActionCounters> = {};
  for (const inv of [...byInv.keys()].sort((a, b) => a - b)) by_inv_id[String(inv)] = byInv.get(inv) as ActionCounters;
  return { action_id: actionId, totals, by_inv_id, last_errors: lastErrors };
}

function addCounter(c: ActionCounters, name: string, n: number): void {
  if (name === 'created' || name === 'delivered' || name === 'expired') c[name] += n;
  else if (name.startsWith('r:') && (ACTION_RESPONSES as readonly string[]).includes(name.slice(2))) {
    c.responses[name.slice(2) as ActionResponse] += n;
  }
}

/**
 * `details` as stored: at most `maxBytes` UTF-8 bytes, cut before a character that would not fit
 * (never inside a surrogate pair), so a device cannot make one report arbitrarily large. Null stays null.
 */
export function clampDetails(details: string | undefined, maxBytes = MAX_ERROR_DETAILS_BYTES): string | null {
  if (details === undefined) return null;
  if (Buffer.byteLength(details, 'utf8') <= maxBytes) return details;
  let bytes = 0;
  let end = 0;
  for (const ch of details) {
    const n = Buffer.byteLength(ch, 'utf8');
    if (bytes + n > maxBytes) break;
    bytes += n;
    end += ch.length;
  }
  return details.slice(0, end);
}
