import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { ScenarioResult } from './scenarios';

const HEADING = '## Fault suite';

export function resultsTable(results: ScenarioResult[]): string {
  const secs = (ms?: number | null) => (ms === null ? '—' : ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`);
  const lines = [
    '| scenario | sent | acked | stored | rejected | lost | dup | recovery | result |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|',
    ...results.map((r) => {
      const c = r.counts;
      const result = r.failures.length ? `FAIL: ${r.failures.join('; ')}` : 'pass';
      const notes = r.notes.length ? ` (${r.notes.join('; ')})` : '';
      return `| ${r.id}. ${r.title} | ${c.sent} | ${c.acked} | ${c.stored} | ${c.rejected} | ${c.lost} | ${c.dup} | ${secs(r.recoveredMs)} | ${result}${notes} |`;
    }),
  ];
  return lines.join('\n');
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
