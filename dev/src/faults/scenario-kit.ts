import type { Counts } from './counts';
import type { Harness } from './harness';

/** What every scenario shares: its result's shape, the load's rate, the settle deadline, the verdict on counts. */
export interface ScenarioResult {
  id: string;
  title: string;
  counts: Counts;
  /**
   * From the end of the fault (restart) until the pipeline serves again (an upload acknowledged after
   * it is queryable; e: pulls answer again; f: the maximal uploads are queryable); undefined: never;
   * null: the scenario has no fault to recover from (h).
   */
  recoveredMs?: number | null;
  /** Exact conditions beyond lost = 0 and dup = 0 that failed, in words. */
  failures: string[];
  notes: string[];
}

export interface Scenario {
  id: string;
  title: string;
  short: boolean;
  /** The most the scenario may take (run.ts; default 10 minutes). */
  deadlineMs?: number;
  /** Brings every part it needs itself: run alone (`--only`), the harness starts no stack for it. */
  standalone?: boolean;
  run(h: Harness, ctx: { short: boolean; runId: string }): Promise<ScenarioResult>;
}

export const RATE = 10; // uploads/s of 50 events: the steady load
export const SETTLE_MS = 180_000; // the most a recovery may take before the scenario counts what is missing as lost
export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function verdict(
  id: string,
  title: string,
  counts: Counts,
  recoveredMs: number | undefined,
  extra: string[] = [],
  notes: string[] = [],
): ScenarioResult {
  const failures = [...extra];
  if (counts.acked === 0) failures.push('nothing was acknowledged');
  if (counts.lost !== 0) failures.push(`${counts.lost} acknowledged events lost`);
  // The load is valid by construction: a rejection here is a fault turned into a wrong verdict.
  if (counts.rejected !== 0) failures.push(`${counts.rejected} valid events rejected`);
  if (counts.dup !== 0) failures.push(`${counts.dup} duplicate rows`);
  return { id, title, counts, recoveredMs, failures, notes };
}

export const hashSeed = (s: string) => [...s].reduce((a, c) => (Math.imul(a, 31) + c.charCodeAt(0)) >>> 0, 7);
