import { bounded, onSpawnFailure } from './processes';
import type { Scenario, ScenarioResult } from './scenario-kit';

const NO_COUNTS = { sent: 0, acked: 0, stored: 0, rejected: 0, lost: 0, dup: 0 };

/** A scenario that produced no result of its own: failed, saying why. */
const failedScenario = (s: Pick<Scenario, 'id' | 'title'>, why: string): ScenarioResult => ({
  id: s.id,
  title: s.title,
  counts: { ...NO_COUNTS },
  failures: [why],
  notes: [],
});

/**
 * Runs one scenario to a result, never throwing: its own result, or a failure naming what went
 * wrong — an exception, the deadline, or a program that could not be started (which would
 * otherwise leave the scenario waiting for a readiness that never comes).
 */
async function runScenario(s: Pick<Scenario, 'id' | 'title'>, run: () => Promise<ScenarioResult>, deadlineMs: number): Promise<ScenarioResult> {
  let unsubscribe: () => void = () => undefined;
  const spawnFailed = new Promise<never>((_, reject) => {
    unsubscribe = onSpawnFailure(reject);
  });
  try {
    return await bounded(Promise.race([run(), spawnFailed]), deadlineMs, `scenario ${s.id}`);
  } catch (err) {
    return failedScenario(s, `error: ${(err as Error).message}`);
  } finally {
    unsubscribe();
  }
}

export interface RunnerHooks {
  /** Runs scenario `s` (its setup included). */
  run(s: Scenario): Promise<ScenarioResult>;
  /**
   * After each scenario, whatever its outcome: stops every process it left behind and puts the
   * shared parts back; returns what it stopped (reported as a note).
   */
  cleanup(): Promise<string[]>;
  deadlineMs(s: Scenario): number;
  log(line: string): void;
}

/** Every scenario in turn, each cleaned up after; one that fails or throws never stops the rest. */
export async function runScenarios(chosen: Scenario[], hooks: RunnerHooks): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  for (const s of chosen) {
    hooks.log(`--- ${s.id}. ${s.title}`);
    const started = Date.now();
    const r = await runScenario(s, () => hooks.run(s), hooks.deadlineMs(s));
    const stopped = await hooks.cleanup().catch((err: Error) => [`(clean-up failed: ${err.message})`]);
    if (stopped.length > 0) r.notes.push(`left running, stopped after it: ${stopped.join(', ')}`);
    r.durationMs = Date.now() - started;
    results.push(r);
    hooks.log(
      `${r.failures.length ? 'FAIL' : 'pass'} in ${(r.durationMs / 1000).toFixed(0)} s: ${JSON.stringify(r.counts)} recovery ${r.recoveredMs ?? 'never'} ms ${r.failures.join('; ')} ${r.notes.join('; ')}`,
    );
  }
  return results;
}
