import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

// Partners lint the document with Redocly CLI before they generate a client from it: so does
// `npm test`, with the CLI itself (not a look-alike) and the repo's redocly.yaml (its recommended
// rules, three switched off with the reason written beside each). About a second.
const root = join(__dirname, '../..');
const cli = require.resolve('@redocly/cli/bin/cli.js');

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

describe('docs/openapi.json under Redocly CLI', () => {
  it('lints with no error and no warning under redocly.yaml', async () => {
    // The update notice would ask the registry for the latest version on every run.
    const env = { ...process.env, REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    const { stdout } = await promisify(execFile)(process.execPath, [cli, 'lint', '--format=json', '--max-problems=1000'], { cwd: root, env }).catch(
      (err: { stdout?: string; stderr?: string }) => {
        if (!err.stdout) throw new Error(`redocly lint failed without a report: ${err.stderr}`);
        return { stdout: err.stdout };
      },
    );
    const report = JSON.parse(stdout) as LintReport;
    expect(report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  });

  it('lints docs/openapi.json, and every rule redocly.yaml switches off has its reason written above it', () => {
    const lines = readFileSync(join(root, 'redocly.yaml'), 'utf8').split('\n');
    expect(lines).toContain('    root: docs/openapi.json');
    const off = lines.flatMap((l, i) => (/^ {2}[\w-]+: off$/.test(l) ? [[l.trim(), lines[i - 1]?.startsWith('  # ') ?? false]] : []));
    expect(off).toEqual([
      ['info-license: off', true],
      ['operation-2xx-response: off', true],
      ['operation-4xx-response: off', true],
    ]);
  });
});
