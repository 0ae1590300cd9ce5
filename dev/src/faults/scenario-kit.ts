import { waitFor } from '@evp/testkit';
import { awaitAllStored, type Counts } from './counts';
import { KEYS, type Harness, type KafkaShape } from './harness';
import { traceLosses } from './hop-trace';
import type { Hop } from './hops';
import { sendUpload, startLoad, uploadFactory, type LoadTally } from './load';

/** What every scenario shares: its result's shape, the steady load around a fault, the verdict and the recovery probe. */
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
  /** Where the lost events were last seen (hops.ts), when some were lost and traced. */
  hops?: Record<Hop, number>;
  notes: string[];
  /** How long the scenario took, its clean-up included (set by the runner: what a run's table records). */
  durationMs?: number;
}

export interface Scenario {
  id: string;
  title: string;
  short: boolean;
  /** The Kafka it needs ('single' unless said): the scenario switches the harness to it (Harness.useKafka). */
  kafka?: KafkaShape;
  /** The most the scenario may take (run.ts; default 10 minutes). */
  deadlineMs?: number;
  /** Brings every part it needs itself: run alone (`--only`), the harness starts no stack for it. */
  standalone?: boolean;
  /**
   * `tag` is `<id>-<runId>`, given by the runner: every marker, user and seed of the scenario's load
   * derives from it. Two scenarios building their own tags once shared one (i and k), so k's uploads
   * were i's byte for byte, stored once by their deterministic event ids, and counted lost.
   */
  run(h: Harness, ctx: ScenarioContext): Promise<ScenarioResult>;
}

export interface ScenarioContext {
  short: boolean;
  runId: string;
  tag: string;
}

/** The context of one scenario in one run: its tag comes from its id, so no two scenarios share one. */
export const scenarioContext = (id: string, short: boolean, runId: string): ScenarioContext => ({ short, runId, tag: `${id}-${runId}` });

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
  hops?: Record<Hop, number>,
): ScenarioResult {
  const failures = [...extra];
  if (counts.acked === 0) failures.push('nothing was acknowledged');
  if (counts.lost !== 0) failures.push(`${counts.lost} acknowledged events lost`);
  // The load is valid by construction: a rejection here is a fault turned into a wrong verdict.
  if (counts.rejected !== 0) failures.push(`${counts.rejected} valid events rejected`);
  if (counts.dup !== 0) failures.push(`${counts.dup} duplicate rows`);
  return { id, title, counts, recoveredMs, failures, notes, ...(hops ? { hops } : {}) };
}

/**
 * When events were lost: where each was last seen (hop-trace.ts), as notes and per-hop counts. A
 * trace that fails is a note too: it must not turn a scenario's counts into an error.
 */
export async function traceIfLost(h: Harness, tally: LoadTally, lost: number, since: number): Promise<{ hops?: Record<Hop, number>; notes: string[] }> {
  if (lost === 0) return { notes: [] };
  try {
    const { hops, lines } = await traceLosses(h, tally, since - 5_000);
    return { hops, notes: lines };
  } catch (err) {
    return { notes: [`tracing the lost events failed: ${(err as Error).message}`] };
  }
}

/**
 * Steady load around a fault: `before` ms of load, the fault, `after` ms of load, then count (and
 * trace what was lost). `alongside` starts a second load with the first and is stopped with it.
 */
export async function underLoad(
  h: Harness,
  tag: string,
  timing: { before: number; after: number },
  fault: () => Promise<void>,
  alongside?: () => () => Promise<void>,
) {
  const loadStart = Date.now();
  const load = startLoad({ gatewayUrl: h.gatewayUrl, key: KEYS.sdk, tag, seed: hashSeed(tag), rate: RATE });
  const stopAlongside = alongside?.();
  await pause(timing.before);
  await fault();
  const faultEnd = Date.now();
  const recovery = timeToRecover(h, tag, faultEnd);
  await pause(timing.after);
  const [tally] = await Promise.all([load.stop(), stopAlongside?.()]);
  const { counts } = await awaitAllStored((sql, p) => h.query(sql, p), tally, [tag], { timeoutMs: SETTLE_MS, since: faultEnd });
  return { tally, counts, recoveredMs: await recovery, trace: await traceIfLost(h, tally, counts.lost, loadStart) };
}

/**
 * Recovery as an operator sees it: from the end of the fault until an upload acknowledged after it
 * is queryable in ClickHouse (probe uploads under their own tag, so they are not in the counts).
 * Undefined when that does not happen within SETTLE_MS.
 */
export async function timeToRecover(h: Harness, tag: string, since: number): Promise<number | undefined> {
  const next = uploadFactory(`${tag}-recovery`, 2);
  const deadline = since + SETTLE_MS;
  while (Date.now() < deadline) {
    const r = await sendUpload(h.gatewayUrl, KEYS.sdk, next(1).body);
    if (r.requestId) {
      const seen = await waitFor(async () => (await h.query('SELECT 1 FROM events WHERE request_id = {r:String} LIMIT 1', { r: r.requestId })).length > 0, {
        timeoutMs: Math.max(1, deadline - Date.now()),
        intervalMs: 100,
        what: 'a probe upload acknowledged after the fault',
      }).catch(() => false);
      return seen ? Date.now() - since : undefined;
    }
    await pause(250);
  }
  return undefined;
}

export const hashSeed = (s: string) => [...s].reduce((a, c) => (Math.imul(a, 31) + c.charCodeAt(0)) >>> 0, 7);

/** A JSON call with `key`; status 0 when no answer came (refused, reset or timed out). */
export const call = async (base: string, key: string, method: string, path: string, body?: unknown) => {
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(15_000),
    });
    return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, any> };
  } catch {
    return { status: 0, body: {} as Record<string, any> };
  }
};

/** An event time as the SDKs write it (UTC, milliseconds, no zone). */
export const utc = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

/** Runs `step` every `everyMs` until stopped (one at a time), then waits for the one in hand. */
export function every(everyMs: number, step: () => Promise<void>) {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const t = Date.now();
      await step();
      await pause(Math.max(0, everyMs - (Date.now() - t)));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}
