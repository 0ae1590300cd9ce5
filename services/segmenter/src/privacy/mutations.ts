import { InfraError, type Analytics } from '@evp/core';

/**
 * An erasure's DELETE and APPLY DELETED MASK are issued without waiting (`lightweight_deletes_sync
 * = 0`, `mutations_sync = 0`) and then awaited here, by polling `system.mutations`. Why: in one chdb
 * session (`npm start`) a statement holds the session until it returns, and a waited-for mask
 * rewrite of a 1M-row partition held every analyst's query for 6–9 s (bench:privacy, 10M events).
 * Issued this way, the rewrite runs in ClickHouse's background pool and each poll is a short query,
 * so the analysts' queries run between polls (they share the CPU, not the session).
 */
export interface MutationWait {
  /** Between polls. */
  pollMs?: number;
  /** A mutation not done by then fails the step (retriable: the request resumes from `deleting`). */
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Resolves once `table` has no unfinished mutation: the erasure's own, and any issued before them
 * (retention, expiry), which is at worst a longer wait. A mutation ClickHouse reports as failing
 * (`latest_fail_reason`) throws at once, naming the table and the reason.
 */
export async function mutationsDone(analytics: Analytics, table: string, opts: MutationWait = {}): Promise<void> {
  const { pollMs = 100, timeoutMs = 15 * 60_000, sleep = sleepFor, now = Date.now } = opts;
  const until = now() + timeoutMs;
  for (;;) {
    const [row] = await analytics.query<{ pending: number | string; reason: string }>(
      `SELECT count() AS pending, max(latest_fail_reason) AS reason FROM system.mutations
       WHERE database = currentDatabase() AND table = {table:String} AND NOT is_done`,
      { table },
    );
    if (Number(row?.pending ?? 0) === 0) return;
    if (row?.reason) throw new InfraError('clickhouse', `a mutation of ${table} fails: ${row.reason}`, { retriable: true });
    if (now() >= until) throw new InfraError('clickhouse', `${row?.pending} mutation(s) of ${table} not done after ${timeoutMs} ms`, { retriable: true });
    await sleep(pollMs);
  }
}
