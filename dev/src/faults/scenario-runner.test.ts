import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@evp/testkit';
import { liveChildren, ProgramNotFoundError, startChild, stopStrays, type Child } from './processes';
import type { Scenario, ScenarioResult } from './scenario-kit';
import { runScenarios } from './scenario-runner';

const dir = mkdtempSync(join(tmpdir(), 'faults-runner-'));
/** A child that lives five minutes unless killed. */
const SLEEP = ['-e', 'setTimeout(() => undefined, 300_000)'];
const start = (name: string, cmd: string, args: string[] = []) =>
  startChild(name, cmd, args, { env: process.env, logFile: join(dir, `${name}.log`), cwd: dir });
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const scenario = (id: string, run: () => Promise<ScenarioResult>): Scenario => ({ id, title: `scenario ${id}`, short: true, run });
const passed = (id: string): ScenarioResult => ({
  id,
  title: `scenario ${id}`,
  counts: { sent: 1, acked: 1, stored: 1, rejected: 0, lost: 0, dup: 0 },
  failures: [],
  notes: [],
});

afterAll(async () => {
  await stopStrays(() => false);
});

describe('startChild', () => {
  it('rejects `spawned` with ProgramNotFoundError naming a program that is not installed, resolves `exited`, and keeps nothing alive', async () => {
    const child = start('missing', 'evp-no-such-program-4711');
    await expect(child.spawned).rejects.toThrow(new ProgramNotFoundError('evp-no-such-program-4711'));
    await expect(child.spawned).rejects.toThrow(
      'program evp-no-such-program-4711 not found: it is not in deploy/programs.txt either: list it with the Debian package that provides it',
    );
    await expect(child.exited).resolves.toBeNull();
    expect(liveChildren()).not.toContain(child);
  });
});

describe('startChild in a working directory that does not exist', () => {
  it('says so, not that the program is missing', async () => {
    const child = startChild('lost', process.execPath, ['-e', '0'], { env: process.env, logFile: join(dir, 'lost.log'), cwd: join(dir, 'no-such-dir') });
    await expect(child.spawned).rejects.toThrow(`lost (${process.execPath}) could not be started: spawn ${process.execPath} ENOENT`);
  });
});

describe('ProgramNotFoundError', () => {
  it('names the Debian package of a listed program (deploy/programs.txt)', () => {
    expect(new ProgramNotFoundError('redis-sentinel').message).toBe(
      'program redis-sentinel not found: install Debian package redis-sentinel (deploy/programs.txt)',
    );
    expect(new ProgramNotFoundError('/usr/sbin/nginx').message).toMatch(/^program \/usr\/sbin\/nginx not found: install Debian package nginx/);
  });
});

describe('runScenarios (npm run faults)', () => {
  it('fails a scenario that throws or needs a missing program, stops what each left running, and runs the rest', async () => {
    const started: Child[] = [];
    const log: string[] = [];
    const results = await runScenarios(
      [
        scenario('a', async () => {
          started.push(start('a-sleep', process.execPath, SLEEP));
          await (started[0] as Child).spawned;
          throw new Error('boom');
        }),
        scenario('b', async () => {
          started.push(start('b-sleep', process.execPath, SLEEP));
          start('b-sentinel', 'evp-no-such-sentinel');
          // What a scenario does after starting a program: wait for it to be ready, here for ever.
          return new Promise<ScenarioResult>(() => undefined);
        }),
        scenario('c', async () => passed('c')),
      ],
      {
        run: (s) => s.run(undefined as never, { short: true, runId: 't', tag: 'x-t' }),
        cleanup: () => stopStrays(() => false),
        deadlineMs: () => 30_000,
        log: (l) => log.push(l),
      },
    );
    expect(results.map((r) => [r.id, r.failures, r.notes])).toEqual([
      ['a', ['error: boom'], ['left running, stopped after it: a-sleep']],
      [
        'b',
        ['error: program evp-no-such-sentinel not found: it is not in deploy/programs.txt either: list it with the Debian package that provides it'],
        ['left running, stopped after it: b-sleep'],
      ],
      ['c', [], []],
    ]);
    // Each result says how long its scenario took, clean-up included (the table's `took`).
    expect(results.every((r) => r.durationMs !== undefined && r.durationMs >= 0 && r.durationMs < 60_000)).toBe(true);
    expect(log.filter((l) => l.startsWith('---'))).toEqual(['--- a. scenario a', '--- b. scenario b', '--- c. scenario c']);
    for (const c of started) await waitFor(() => !alive(c.proc.pid as number), { timeoutMs: 5_000, intervalMs: 20, what: `${c.name} gone` });
    expect(liveChildren()).toEqual([]);
  });
});
