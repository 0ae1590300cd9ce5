import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { waitFor } from '@evp/testkit';

/** A child process the harness started; every one is killed when the harness ends, however it ends. */
export interface Child {
  name: string;
  proc: ChildProcess;
  exited: Promise<number | null>;
  /** kill -9, then wait (bounded) until it is gone. */
  kill9(): Promise<void>;
  /** SIGTERM, then wait (bounded) for its own exit; kill -9 past the deadline. */
  terminate(timeoutMs?: number): Promise<number | null>;
}

const live = new Set<Child>();

/**
 * Starts `cmd` detached in its own process group with stdout/stderr appended to `logFile`.
 * Services run as `node --import tsx main.ts` — one process, so a signal reaches the service itself
 * (a tsx wrapper would relay SIGTERM a second time, which kills a process that handles it once).
 */
export function startChild(name: string, cmd: string, args: string[], opts: { env: Record<string, string | undefined>; logFile: string; cwd: string }): Child {
  const fd = openSync(opts.logFile, 'a');
  const proc = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', fd, fd], detached: true });
  closeSync(fd);
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code, signal) => resolve(signal ? null : code)));
  const child: Child = {
    name,
    proc,
    exited,
    async kill9() {
      signalGroup(proc, 'SIGKILL');
      await bounded(exited, 10_000, `${name} to die after kill -9`);
      live.delete(child);
    },
    async terminate(timeoutMs = 30_000) {
      signalGroup(proc, 'SIGTERM', false);
      const code = await Promise.race([exited, new Promise<'late'>((r) => setTimeout(r, timeoutMs, 'late'))]);
      if (code === 'late') {
        await child.kill9();
        throw new Error(`${name} did not exit within ${timeoutMs} ms of SIGTERM`);
      }
      live.delete(child);
      return code;
    },
  };
  void exited.then(() => live.delete(child));
  live.add(child);
  return child;
}

function signalGroup(proc: ChildProcess, signal: NodeJS.Signals, group = true) {
  if (proc.pid === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
  try {
    process.kill(group ? -proc.pid : proc.pid, signal);
  } catch {
    // already gone
  }
}

export async function bounded<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** kill -9 of every child still alive: the harness's last word, on success and failure alike. */
export function killAllChildren() {
  for (const c of live) signalGroup(c.proc, 'SIGKILL');
  live.clear();
}

/**
 * Runs a harness script's main: its child processes die with it on Ctrl-C and on any failure (exit
 * 130 and 1), so no broker or service outlives a run.
 */
export function runHarnessScript(main: () => Promise<void>): void {
  process.on('SIGINT', () => {
    killAllChildren();
    process.exit(130);
  });
  main().catch((err) => {
    console.error(err);
    killAllChildren();
    process.exit(1);
  });
}

/** Polls an HTTP URL until it answers 2xx. */
export const waitHttpOk = (url: string, timeoutMs: number) =>
  waitFor(
    async () => {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      return res.ok;
    },
    { timeoutMs, intervalMs: 200, what: `${url} to answer 2xx` },
  );
