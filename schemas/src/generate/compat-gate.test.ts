import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REGENERATE_COMMAND } from './generate';
import { AVRO_DIR } from './avro-files';
import { GitUnavailableError, backwardProblems, baselineRefs, runCompatibilityGate } from './compat-gate';

const record = (fields: object[]) => ({ type: 'record', name: 'E', namespace: 'evp.test', fields });
const v1 = record([
  { name: 'id', type: 'string' },
  { name: 'count', type: 'int' },
]);

describe('schema compatibility gate (this repository)', () => {
  it('every committed .avsc is BACKWARD compatible with the schema derived now', () => {
    // Optional override for CI jobs that want to compare with a branch base (e.g. origin/main).
    const base = process.env.SCHEMA_COMPAT_BASE;
    const { findings } = runCompatibilityGate(base ? [base] : baselineRefs());
    const report = findings.map((f) => `${f.path} at ${f.ref}:\n  ${f.problems.join('\n  ')}`).join('\n');
    expect(report === '' ? '' : `${report}\nMake the change compatible (new fields optional with a default), then ${REGENERATE_COMMAND}`).toBe('');
  });
});

describe('the gate itself', () => {
  let dir: string;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe', encoding: 'utf8' });
  const commitSchema = (topic: string, schema: object) => {
    mkdirSync(join(dir, AVRO_DIR), { recursive: true });
    writeFileSync(join(dir, AVRO_DIR, `${topic}.avsc`), JSON.stringify(schema));
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgsign=false', 'commit', '-qm', topic);
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'compat-gate-'));
    git('init', '-q');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('passes when nothing was committed before (first commit)', () => {
    expect(baselineRefs(dir)).toEqual([]);
    expect(runCompatibilityGate(baselineRefs(dir), dir, new Map([['events.test', v1]]))).toEqual({ checked: 0, findings: [] });
  });

  it('passes a topic that had no committed schema at the previous commit', () => {
    commitSchema('events.other', v1);
    const derived = new Map([
      ['events.other', v1],
      ['events.new', record([{ name: 'x', type: 'int' }])],
    ]);
    expect(runCompatibilityGate(baselineRefs(dir), dir, derived)).toEqual({ checked: 1, findings: [] });
  });

  it('fails an int → string change, naming the file and the ref', () => {
    commitSchema('events.test', v1);
    const changed = record([
      { name: 'id', type: 'string' },
      { name: 'count', type: 'string' },
    ]);
    const { checked, findings } = runCompatibilityGate(baselineRefs(dir), dir, new Map([['events.test', changed]]));
    expect(checked).toBe(1);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ ref: 'HEAD', path: `${AVRO_DIR}/events.test.avsc` });
  });

  it('fails a new required field without a default, passes a new optional one', () => {
    commitSchema('events.test', v1);
    const refs = baselineRefs(dir);
    const required = record([...v1.fields, { name: 'extra', type: 'string' }]);
    const optional = record([...v1.fields, { name: 'extra', type: ['null', 'string'], default: null }]);
    expect(runCompatibilityGate(refs, dir, new Map([['events.test', required]])).findings).toHaveLength(1);
    expect(runCompatibilityGate(refs, dir, new Map([['events.test', optional]])).findings).toHaveLength(0);
  });

  it('checks the parent commit too, so CI (where HEAD is the change) still catches it', () => {
    commitSchema('events.test', v1);
    const broken = record([
      { name: 'id', type: 'string' },
      { name: 'count', type: 'string' },
    ]);
    commitSchema('events.test', broken);
    const refs = baselineRefs(dir);
    expect(refs).toEqual(['HEAD', 'HEAD~1']);
    const { findings } = runCompatibilityGate(refs, dir, new Map([['events.test', broken]]));
    expect(findings.map((f) => f.ref)).toEqual(['HEAD~1']);
  });

  it('lets a field be deleted, as Avro BACKWARD (and the registry) does: the new reader ignores it', () => {
    commitSchema('events.test', v1);
    const deleted = record([{ name: 'id', type: 'string' }]);
    expect(runCompatibilityGate(baselineRefs(dir), dir, new Map([['events.test', deleted]])).findings).toEqual([]);
  });

  it('fails when a committed topic is no longer derived', () => {
    commitSchema('events.gone', v1);
    expect(runCompatibilityGate(['HEAD'], dir, new Map()).findings[0]!.problems[0]).toMatch(/no longer derived/);
  });

  it('fails loudly, never skips, when git cannot read history', () => {
    const notRepo = mkdtempSync(join(tmpdir(), 'no-git-'));
    try {
      expect(() => baselineRefs(notRepo)).toThrow(GitUnavailableError);
      expect(() => runCompatibilityGate(['HEAD'], notRepo, new Map())).toThrow(GitUnavailableError);
    } finally {
      rmSync(notRepo, { recursive: true, force: true });
    }
  });

  it('backwardProblems is empty for an identical schema', () => {
    expect(backwardProblems(JSON.stringify(v1), v1)).toEqual([]);
  });
});
