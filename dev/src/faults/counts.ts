import type { LoadTally } from './load';

/** What a scenario is judged on; every figure is exact. */
export interface Counts {
  sent: number;
  acked: number;
  stored: number;
  rejected: number;
  lost: number;
  dup: number;
}

type Query = <T>(sql: string, params?: Record<string, unknown>) => Promise<T[]>;

/**
 * Counts the acknowledged events of `tags` in ClickHouse: stored = distinct markers present (among
 * acknowledged requests), rejected = events of acknowledged requests in `rejected`, lost = acked −
 * stored − rejected, dup = rows beyond one per marker once merges ran (OPTIMIZE … FINAL first when
 * `final`: without it, rows a ReplacingMergeTree will still collapse would count as duplicates).
 */
async function countEvents(query: Query, tally: LoadTally, tags: string[], opts: { final?: boolean } = {}): Promise<Counts> {
  if (opts.final) await query('OPTIMIZE TABLE events FINAL');
  const where = tags.map((_, i) => `startsWith(ifNull(property, ''), {t${i}:String})`).join(' OR ');
  const params = Object.fromEntries(tags.map((t, i) => [`t${i}`, `${t}:`]));
  const rows = await query<{ request_id: string; markers: string; rows: string }>(
    `SELECT request_id, toString(uniqExact(property)) AS markers, toString(count()) AS rows FROM events WHERE ${where} GROUP BY request_id`,
    params,
  );
  const rejectedRows = await query<{ request_id: string; events: string }>(
    `SELECT request_id, toString(sum(event_count)) AS events FROM rejected FINAL WHERE request_id IN {ids:Array(String)} GROUP BY request_id`,
    { ids: [...tally.acked.keys()] },
  );
  const stored = new Map(rows.map((r) => [r.request_id, Number(r.markers)]));
  const rejected = new Map(rejectedRows.map((r) => [r.request_id, Number(r.events)]));
  let storedAcked = 0;
  let rejectedAcked = 0;
  let lost = 0;
  for (const [rid, markers] of tally.acked) {
    const s = stored.get(rid) ?? 0;
    const r = rejected.get(rid) ?? 0;
    storedAcked += s;
    rejectedAcked += r;
    lost += Math.max(0, markers.length - s - r);
  }
  const dup = rows.reduce((n, r) => n + Number(r.rows) - Number(r.markers), 0);
  return { sent: tally.sentEvents, acked: tally.ackedEvents, stored: storedAcked, rejected: rejectedAcked, lost, dup };
}

/**
 * Polls until every acknowledged event is stored or rejected, or the deadline passes; returns the
 * last counts and how long it took from `since` (the recovery time when `since` is the fault's end).
 */
export async function awaitAllStored(query: Query, tally: LoadTally, tags: string[], opts: { timeoutMs: number; since: number }) {
  const deadline = Date.now() + opts.timeoutMs;
  let counts: Counts | undefined;
  for (;;) {
    counts = await countEvents(query, tally, tags).catch(() => counts);
    if (counts && counts.lost === 0) break;
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 1_000));
  }
  const recoveredMs = counts && counts.lost === 0 ? Date.now() - opts.since : undefined;
  const final = await countEvents(query, tally, tags, { final: true });
  return { counts: final, recoveredMs };
}
