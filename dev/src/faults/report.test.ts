import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeSection } from './report';

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
