import { parseTimestamp } from '@evp/segment-language';
import type { StoredCampaign } from './source';
import { isLive } from './states';
import type { TriggerItem } from './trigger-items';
import { latestOccurrence } from './triggers/schedule';

export type UsersItem = Extract<TriggerItem, { kind: 'users' }>;

/**
 * A batch's items in the order the worker acts on them: the items that find their users in
 * ClickHouse (event and schedule items), one by one in batch order; then the items whose users are
 * named outright (segment entries, API calls), gathered per campaign in batch order, so each
 * campaign's are planned and rendered together.
 */
export function splitTriggerBatch(items: readonly TriggerItem[]): { single: TriggerItem[]; byCampaign: UsersItem[][] } {
  const single: TriggerItem[] = [];
  const byCampaign = new Map<string, UsersItem[]>();
  for (const item of items) {
    if (item.kind === 'users' && item.trigger !== 'event') {
      const key = `${item.app_id}:${item.campaign_id}`;
      const group = byCampaign.get(key);
      if (group) group.push(item);
      else byCampaign.set(key, [item]);
    } else single.push(item);
  }
  return { single, byCampaign: [...byCampaign.values()] };
}

/**
 * Whether campaign `c` acts on a trigger at `atMs`, judged at `nowMs`: the trigger inside the
 * campaign's window (start_at, end_at) in a live state, and the campaign still before its end_at.
 */
export function liveAt(c: StoredCampaign, atMs: number, nowMs: number): boolean {
  const window: { startMs?: number; endMs?: number } = {};
  if (c.document.start_at !== undefined) window.startMs = parseTimestamp(c.document.start_at) as number;
  if (c.document.end_at !== undefined) window.endMs = parseTimestamp(c.document.end_at) as number;
  return isLive(c.state, window, atMs) && (window.endMs === undefined || nowMs < window.endMs);
}

/**
 * The schedule occurrences due at `now`: per active campaign its latest occurrence, unless it is
 * older than `catchUpMs` (an outage longer than it skips it) or this process produced it already
 * (`produced`: `app:campaign` → run_at).
 */
export function dueOccurrences(active: readonly StoredCampaign[], now: number, catchUpMs: number, produced: ReadonlyMap<string, number>): TriggerItem[] {
  const items: TriggerItem[] = [];
  for (const c of active) {
    const runAt = latestOccurrence(c, now);
    if (runAt === undefined || now - runAt > catchUpMs || produced.get(`${c.app_id}:${c.id}`) === runAt) continue;
    items.push({ kind: 'schedule', app_id: c.app_id, campaign_id: c.id, run_at: runAt });
  }
  return items;
}
