import type { BusMessage, OutgoingMessage } from '@evp/core';
import { taggedMessageReader, type RecordField, type RecordOf } from '@evp/schemas';
import type { InsertedRow } from '../sink';
import type { CompiledSegment } from '@evp/segment-language';

/**
 * A work item on `segments.work` (JSON, key `app_id:segment_id`, so every item of a segment lands on
 * one partition and its owner is the only replica evaluating the segment), one field table per
 * kind: the WorkItem type and its reader (readWorkItem) are derived from them.
 * - `users`: re-evaluate these users (their events or user-catalog records just arrived);
 * - `full`: re-evaluate every user (schedule, create, update, delete, other catalog records), unless
 *   a full evaluation of the segment started at or after `requested_at`.
 */
const WORK_ITEM_FIELDS = {
  users: [
    { name: 'kind', kind: 'enum', symbols: ['users'] },
    { name: 'app_id', kind: 'string', nonEmpty: true },
    { name: 'segment_id', kind: 'string', nonEmpty: true },
    { name: 'users', kind: 'stringList' },
  ],
  full: [
    { name: 'kind', kind: 'enum', symbols: ['full'] },
    { name: 'app_id', kind: 'string', nonEmpty: true },
    { name: 'segment_id', kind: 'string', nonEmpty: true },
    { name: 'requested_at', kind: 'epochMs' },
  ],
} as const satisfies Record<string, readonly RecordField[]>;

export type WorkItem = { [K in keyof typeof WORK_ITEM_FIELDS]: RecordOf<(typeof WORK_ITEM_FIELDS)[K]> }[keyof typeof WORK_ITEM_FIELDS];

export const workKey = (appId: string, segmentId: string) => `${appId}:${segmentId}`;

export const workMessage = (item: WorkItem): OutgoingMessage => ({ key: workKey(item.app_id, item.segment_id), value: Buffer.from(JSON.stringify(item)) });

/** A work item from its message; a message that is none is a bug of its producer (UnreadableMessageError: dead-lettered, never retried). */
export const readWorkItem: (m: BusMessage) => WorkItem = taggedMessageReader('kind', WORK_ITEM_FIELDS, 'a segment work item');

/** A live segment of an app with its compiled query: what triggers are matched against. */
export interface SegmentEntry {
  app_id: string;
  id: string;
  compiled: CompiledSegment;
}

/** What one app's stored rows touched: users per event name, users of user-catalog records, other catalog kinds. */
interface AppTouches {
  byName: Map<string, Set<string>>;
  eventUsers: Set<string>;
  userRecords: Set<string>;
  kinds: Set<string>;
}

function touchesByApp(rows: readonly InsertedRow[]): Map<string, AppTouches> {
  const apps = new Map<string, AppTouches>();
  for (const r of rows) {
    let t = apps.get(r.app_id);
    if (!t) apps.set(r.app_id, (t = { byName: new Map(), eventUsers: new Set(), userRecords: new Set(), kinds: new Set() }));
    if (r.catalog !== undefined) {
      t.kinds.add(r.catalog);
      if (r.catalog === 'user' && r.user_id !== undefined) t.userRecords.add(r.user_id);
    } else if (r.name !== undefined && r.user_id !== undefined) {
      let users = t.byName.get(r.name);
      if (!users) t.byName.set(r.name, (users = new Set()));
      users.add(r.user_id);
      t.eventUsers.add(r.user_id);
    }
  }
  return apps;
}

/**
 * The work the stored rows call for: per segment of their app, a `users` item (cut into items of at
 * most `usersPerItem`) with the users whose events of a name the segment reads (any name for `*`)
 * or whose user record arrived; a `full` item instead when a record of another catalog kind the
 * segment reads arrived (it may change any user's membership).
 */
export function workForRows(
  rows: readonly InsertedRow[],
  segmentsOf: (appId: string) => readonly SegmentEntry[],
  usersPerItem: number,
  now: number,
): WorkItem[] {
  const items: WorkItem[] = [];
  for (const [appId, t] of touchesByApp(rows)) {
    for (const s of segmentsOf(appId)) {
      const { events, catalogs } = s.compiled;
      if (catalogs.some((k) => k !== 'user' && t.kinds.has(k))) {
        items.push({ kind: 'full', app_id: appId, segment_id: s.id, requested_at: now });
        continue;
      }
      const users = new Set<string>();
      const add = (set: Set<string> | undefined) => set?.forEach((u) => users.add(u));
      if (events.includes('*')) add(t.eventUsers);
      else for (const name of events) add(t.byName.get(name));
      if (catalogs.includes('user')) add(t.userRecords);
      const list = [...users].sort();
      for (let i = 0; i < list.length; i += usersPerItem) {
        items.push({ kind: 'users', app_id: appId, segment_id: s.id, users: list.slice(i, i + usersPerItem) });
      }
    }
  }
  return items;
}
