import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { ScenarioResult } from './scenarios';

const HEADING = '## Fault suite';

export function resultsTable(results: ScenarioResult[]): string {
  const secs = (ms?: number | null) => (ms === null ? '—' : ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`);
  const lines = [
    '| scenario | sent | acked | stored | rejected | lost | dup | recovery | took | result |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...results.map((r) => {
      const c = r.counts;
      const result = r.failures.length ? `FAIL: ${r.failures.join('; ')}` : 'pass';
      const notes = r.notes.length ? ` (${r.notes.join('; ')})` : '';
      const took = r.durationMs === undefined ? '—' : `${Math.round(r.durationMs / 1000)} s`;
      return `| ${r.id}. ${r.title} | ${c.sent} | ${c.acked} | ${c.stored} | ${c.rejected} | ${c.lost} | ${c.dup} | ${secs(r.recoveredMs)} | ${took} | ${result}${notes} |`;
    }),
  ];
  return lines.join('\n');
}

/** One repetition of a scenario (`--repeat`). */
export type LoopRun = ScenarioResult & { run: number };

const hopsOf = (r: ScenarioResult) => (r.hops ? `not on raw ${r.hops.acked}, raw only ${r.hops.raw}, topic only ${r.hops.topic}, late ${r.hops.table}` : '—');

/** One run's counts on one line: what `--repeat` prints after each run. */
export const runLine = (r: ScenarioResult) => {
  const c = r.counts;
  return `${r.id} ${r.failures.length ? 'FAIL' : 'pass'}: sent ${c.sent} acked ${c.acked} stored ${c.stored} lost ${c.lost} dup ${c.dup}${r.hops ? ` (lost by hop: ${hopsOf(r)})` : ''}`;
};

/** Every repetition's counts, one row each, and how many in a row passed at the end. */
export function loopTable(runs: LoopRun[]): string {
  let streak = 0;
  for (const r of runs) streak = r.failures.length ? 0 : streak + 1;
  const lines = [
    '| run | scenario | sent | acked | stored | lost | dup | lost by hop | result |',
    '|---:|---|---:|---:|---:|---:|---:|---|---|',
    ...runs.map((r) => {
      const c = r.counts;
      return `| ${r.run} | ${r.id} | ${c.sent} | ${c.acked} | ${c.stored} | ${c.lost} | ${c.dup} | ${hopsOf(r)} | ${r.failures.length ? `FAIL: ${r.failures.join('; ')}` : 'pass'} |`;
    }),
  ];
  return `${lines.join('\n')}\n\n${runs.filter((r) => !r.failures.length).length} of ${runs.length} passed; the last ${streak} in a row.`;
}

/**
 * Replaces the "## Fault suite" section of docs/reliability.md (up to the next "## ") with `body`,
 * leaving every other section (e.g. "Mechanisms", written elsewhere) as it is. The file is written
 * in the project's Prettier style, so `npm test`'s format check passes after a run.
 */
export function writeSection(path: string, body: string) {
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '# Reliability\n';
  const start = text.indexOf(`${HEADING}\n`);
  const section = `${HEADING}\n\n${body.trim()}\n`;
  const rest = start < 0 ? -1 : text.indexOf('\n## ', start + HEADING.length);
  const updated = start < 0 ? `${text.trimEnd()}\n\n${section}` : `${text.slice(0, start)}${section}${rest < 0 ? '' : text.slice(rest)}`;
  writeFileSync(path, updated);
  // The CLI, not the API: Prettier's API loads its plugins by dynamic import, which jest's CommonJS runtime refuses.
  execFileSync(process.execPath, [require.resolve('prettier/bin/prettier.cjs'), '--write', '--log-level', 'warn', path]);
}
