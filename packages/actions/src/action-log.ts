import { sha256Hex } from '@evp/core';
import type { ActionLogEntry, ActionLogKind } from '@evp/schemas';
import type { PreparedAction } from './records';

export type { ActionLogEntry, ActionLogKind } from '@evp/schemas';

/**
 * The outbox of the action log, as both adapters keep it (docs/actions.md, "The action log").
 *
 * A store operation appends, in the same atomic step as the change itself, one outbox record per
 * kind of step it took, holding every entry of that kind (at most LOG_RECORD_MAX_ENTRIES; more
 * make more records). One record per operation instead of one per entry keeps a pull of 1,000
 * one-off actions at one append instead of 1,000. A record is a flat list of strings (a Redis
 * stream entry's fields):
 *
 *   'k', <c|d|w|x|p>, 't', <store clock, epoch ms>, ['s', <source>: created and capped], then per
 *   entry <rid>, <value>
 *
 * where rid is `<inv_id>:<action_id>:<user_id>` and value is, for `created`, the JSON of
 * CreatedLogValue, for `capped` (code p) `<reason>|` followed by that JSON, and otherwise `<created_at>|<expires ms or ''>|<delivery_mode>|<type>|<render_method>`
 * (the same text the Redis script keeps in the action's hash, field `l`).
 */
export const LOG_KIND_CODES: Readonly<Record<string, ActionLogKind>> = { c: 'created', d: 'delivered', w: 'withdrawn', x: 'expired', p: 'capped' };

/** Entries in one outbox record at most (the Redis script's argument lists stay far below Lua's limit). */
export const LOG_RECORD_MAX_ENTRIES = 1000;
/** Records one readLog takes per app and phase (stale ones claimed, then new ones). */
export const LOG_READ_RECORDS = 10;
/** How long a read but unacknowledged record stays with its reader before another read may claim it. */
export const DEFAULT_LOG_LEASE_MS = 30_000;

/** A read of the outbox: whole records, oldest first per app, apps in id order. */
export interface ActionLogBatch {
  entries: ActionLogEntry[];
  /** Pass these to `ackLog` once every entry is durable elsewhere. Opaque. */
  acks: string[];
}

export interface CreatedLogValue {
  type: string;
  render_method: string;
  delivery_mode: string;
  tags: string[];
  attr: Record<string, string>;
  /** Epoch ms, null = never. */
  expired_at: number | null;
  /** Epoch ms, null = at creation. Absent in values written before availability existed. */
  available_at?: number | null;
}

/** The outbox value of a created action (both adapters store exactly this text). */
export function createdLogValue(p: PreparedAction): string {
  const { payload } = p.record;
  const value: CreatedLogValue = {
    type: payload.type,
    render_method: payload.render_method,
    delivery_mode: payload.delivery_mode,
    tags: payload.tags,
    attr: payload.attr,
    expired_at: p.expiresAt,
    available_at: p.availableAt,
  };
  return JSON.stringify(value);
}

/** The outbox value of any later step: what the Redis script keeps in the action's hash (`l`). */
export const stepLogValue = (createdAt: number, expiresAt: number | null, p: { delivery_mode: string; type: string; render_method: string }) =>
  `${createdAt}|${expiresAt ?? ''}|${p.delivery_mode}|${p.type}|${p.render_method}`;

/** Deterministic: the same step of the same action always gets the same id, so re-sent entries collapse. */
export const actionLogEntryId = (appId: string, rid: string, createdAt: number, kind: ActionLogKind) =>
  sha256Hex(`${appId}\u0000${rid}\u0000${createdAt}\u0000${kind}`).slice(0, 32);

/** An ack token: where a record sits. Stream ids hold no '@', so the first one splits it. */
export const logAck = (appId: string, recordId: string) => `${recordId}@${appId}`;

export function parseLogAck(ack: string): { appId: string; recordId: string } {
  const at = ack.indexOf('@');
  if (at <= 0) throw new RangeError(`not an action log ack: ${ack}`);
  return { recordId: ack.slice(0, at), appId: ack.slice(at + 1) };
}

const RID = /^(\d+):(\d+):([\s\S]*)$/;

/** The entries of one outbox record of an app. */
export function entriesOfLogRecord(appId: string, fields: readonly string[]): ActionLogEntry[] {
  const head = new Map<string, string>();
  let i = 0;
  // The header is k, t and (created) s; entries follow. rids start with a digit, header names do not.
  while (i + 1 < fields.length && !/^\d/.test(fields[i] as string)) {
    head.set(fields[i] as string, fields[i + 1] as string);
    i += 2;
  }
  const kind = LOG_KIND_CODES[head.get('k') ?? ''];
  if (!kind) throw new Error(`action log record of ${appId} has no known kind: ${JSON.stringify(fields.slice(0, 6))}`);
  const at = Number(head.get('t'));
  const out: ActionLogEntry[] = [];
  for (; i + 1 < fields.length; i += 2) {
    const rid = fields[i] as string;
    const value = fields[i + 1] as string;
    const m = RID.exec(rid);
    if (!m) throw new Error(`action log record of ${appId} has a malformed action id: ${rid}`);
    const ids = { app_id: appId, user_id: m[3] as string, inv_id: Number(m[1]), action_id: Number(m[2]) };
    if (kind === 'created' || kind === 'capped') {
      const bar = kind === 'capped' ? value.indexOf('|') : -1;
      const v = JSON.parse(value.slice(bar + 1)) as CreatedLogValue;
      out.push({
        entry_id: actionLogEntryId(appId, rid, at, kind),
        kind,
        ...ids,
        at,
        created_at: at,
        type: v.type,
        render_method: v.render_method,
        delivery_mode: v.delivery_mode,
        expired_at: v.expired_at,
        tags: v.tags,
        attr: v.attr,
        source: head.get('s') ?? '',
        reason: bar < 0 ? '' : value.slice(0, bar),
        available_at: v.available_at ?? null,
      });
    } else {
      const [created, expires, mode, type, rm] = value.split('|') as [string, string, string, string, string];
      const createdAt = Number(created);
      const expiredAt = expires === '' ? null : Number(expires);
      out.push({
        entry_id: actionLogEntryId(appId, rid, createdAt, kind),
        kind,
        ...ids,
        // An expiry happened at expired_at, whenever the sweep noticed it.
        at: kind === 'expired' && expiredAt !== null ? expiredAt : at,
        created_at: createdAt,
        type,
        render_method: rm,
        delivery_mode: mode,
        expired_at: expiredAt,
        tags: [],
        attr: {},
        source: '',
        reason: '',
        available_at: null,
      });
    }
  }
  return out;
}

/**
 * One outbox record without the entries of some users (an erasure): the header and the other
 * entries, and how many entries were taken out. The Redis script REWRITE_LOG does the same.
 */
export function logRecordWithout(fields: readonly string[], users: ReadonlySet<string>): { kept: string[]; removed: number; left: number } {
  let i = 0;
  while (i + 1 < fields.length && !/^\d/.test(fields[i] as string)) i += 2;
  const kept = fields.slice(0, i);
  let removed = 0;
  let left = 0;
  for (; i + 1 < fields.length; i += 2) {
    const user = RID.exec(fields[i] as string)?.[3];
    if (user !== undefined && users.has(user)) removed++;
    else {
      kept.push(fields[i] as string, fields[i + 1] as string);
      left++;
    }
  }
  return { kept, removed, left };
}
