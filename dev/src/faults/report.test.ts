import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loopTable, resultsTable, runLine, writeSection } from './report';

describe('writeSection (npm run faults -- --write-docs)', () => {
  it('replaces only the fault-suite section and leaves the file in the Prettier style the test gate checks', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'faults-report-')), 'reliability.md');
    writeFileSync(path, '# Reliability\n\n## Mechanisms\n\nkept\n\n## Fault suite\n\nold\n\n## After\n\nkept too\n');
    writeSection(path, '| scenario | lost |\n|---|---:|\n| a. broker kill -9 | 0 |');
    const text = readFileSync(path, 'utf8');
    expect(text).toBe(
      '# Reliability\n\n## Mechanisms\n\nkept\n\n## Fault suite\n\n| scenario          | lost |\n| ----------------- | ---: |\n| a. broker kill -9 |    0 |\n\n## After\n\nkept too\n',
    );
    // Throws (exit 1) when the file is not formatted.
    execFileSync(process.execPath, [require.resolve('prettier/bin/prettier.cjs'), '--check', '--log-level', 'warn', path]);
  });
});

describe('loopTable and runLine (npm run faults -- --only k --repeat N)', () => {
  const counts = { sent: 100, acked: 80, stored: 80, rejected: 0, lost: 0, dup: 0 };
  const pass = (run: number) => ({ run, id: 'k', title: 't', counts, failures: [], notes: [] });
  const fail = {
    run: 2,
    id: 'k',
    title: 't',
    counts: { ...counts, stored: 30, lost: 50 },
    failures: ['50 acknowledged events lost'],
    notes: [],
    hops: { acked: 50, raw: 0, topic: 0, table: 0 },
  };

  it("prints each run's counts and hop breakdown, and the passes in a row at the end", () => {
    expect(runLine(fail)).toBe('k FAIL: sent 100 acked 80 stored 30 lost 50 dup 0 (lost by hop: not on raw 50, raw only 0, topic only 0, late 0)');
    expect(runLine(pass(1))).toBe('k pass: sent 100 acked 80 stored 80 lost 0 dup 0');
    expect(loopTable([pass(1), fail, pass(3), pass(4)])).toBe(
      [
        '| run | scenario | sent | acked | stored | lost | dup | lost by hop | result |',
        '|---:|---|---:|---:|---:|---:|---:|---|---|',
        '| 1 | k | 100 | 80 | 80 | 0 | 0 | — | pass |',
        '| 2 | k | 100 | 80 | 30 | 50 | 0 | not on raw 50, raw only 0, topic only 0, late 0 | FAIL: 50 acknowledged events lost |',
        '| 3 | k | 100 | 80 | 80 | 0 | 0 | — | pass |',
        '| 4 | k | 100 | 80 | 80 | 0 | 0 | — | pass |',
        '',
        '3 of 4 passed; the last 2 in a row.',
      ].join('\n'),
    );
  });
});

describe('resultsTable (npm run faults)', () => {
  it('prints each scenario with its counts, recovery, how long it took, and its failures and notes', () => {
    const counts = { sent: 100, acked: 80, stored: 80, rejected: 0, lost: 0, dup: 0 };
    expect(
      resultsTable([
        { id: 'a', title: 'broker kill', counts, recoveredMs: 4_058, durationMs: 64_400, failures: [], notes: ['feedback: 3 sent'] },
        { id: 'h', title: 'embedded', counts, recoveredMs: null, failures: ['2 lost'], notes: [] },
        { id: 'k', title: 'cluster', counts, failures: [], notes: [], durationMs: 499 },
      ]),
    ).toBe(
      [
        '| scenario | sent | acked | stored | rejected | lost | dup | recovery | took | result |',
        '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
        '| a. broker kill | 100 | 80 | 80 | 0 | 0 | 0 | 4.1 s | 64 s | pass (feedback: 3 sent) |',
        '| h. embedded | 100 | 80 | 80 | 0 | 0 | 0 | — | — | FAIL: 2 lost |',
        '| k. cluster | 100 | 80 | 80 | 0 | 0 | 0 | never | 0 s | pass |',
      ].join('\n'),
    );
  });
});
