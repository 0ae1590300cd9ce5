import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { basename } from 'node:path';
import { readProgramList, waitFor } from '@evp/testkit';

/** A child process the harness started; every one is killed when the harness ends, however it ends. */
export interface Child {
  name: string;
  proc: ChildProcess;
  /** Resolves with the exit code (null: killed by a signal, or never started: see `spawned`). */
  exited: Promise<number | null>;
  /** Resolves once the program runs; rejects when it could not be started (ProgramNotFoundError when not installed). */
  spawned: Promise<void>;
  /** kill -9, then wait (bounded) until it is gone. */
  kill9(): Promise<void>;
  /** SIGTERM, then wait (bounded) for its own exit; kill -9 past the deadline. */
  terminate(timeoutMs?: number): Promise<number | null>;
}

/**
 * A program the harness needs is not installed (spawn answered ENOENT). Node reports that as an
 * 'error' event on the ChildProcess, which, unheard, kills the whole run: the run fails the one
 * scenario that needed the program and goes on.
 */
export class ProgramNotFoundError extends Error {
  constructor(readonly program: string) {
    super(`program ${program} not found: ${installHint(program)}`);
    this.name = 'ProgramNotFoundError';
  }
}

/** What to install, from deploy/programs.txt (@evp/testkit's list of the programs the project runs). */
function installHint(program: string): string {
  const listed = readProgramList().find((p) => p.program === basename(program));
  if (!listed) return 'it is not in deploy/programs.txt either: list it with the Debian package that provides it';
  return listed.package === 'machine'
    ? 'the machine should provide it (deploy/programs.txt)'
    : `install Debian package ${listed.package} (deploy/programs.txt)`;
}

const live = new Set<Child>();
/** Told of every child that could not be started (the run fails the scenario in progress at once). */
const spawnFailureListeners = new Set<(err: Error) => void>();

/** Calls `listener` for every child that cannot be started from now on; returns the unsubscribe. */
export function onSpawnFailure(listener: (err: Error) => void): () => void {
  spawnFailureListeners.add(listener);
  return () => spawnFailureListeners.delete(listener);
}

/**
 * Starts `cmd` detached in its own process group with stdout/stderr appended to `logFile`.
 * Services run as `node --import tsx main.ts` — one process, so a signal reaches the service itself
 * (a tsx wrapper would relay SIGTERM a second time, which kills a process that handles it once).
 * A program that cannot be started rejects `spawned`, resolves `exited` (null) and is reported to
 * the `onSpawnFailure` listeners; it never throws out of the event loop.
 */
export function startChild(name: string, cmd: string, args: string[], opts: { env: Record<string, string | undefined>; logFile: string; cwd: string }): Child {
  const fd = openSync(opts.logFile, 'a');
  const proc = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', fd, fd], detached: true });
  closeSync(fd);
  let settleExit!: (code: number | null) => void;
  const exited = new Promise<number | null>((resolve) => (settleExit = resolve));
  proc.once('exit', (code, signal) => settleExit(signal ? null : code));
  const spawned = new Promise<void>((resolve, reject) => {
    proc.once('spawn', () => resolve());
    // 'error' also comes for a failed kill or send: only one before 'spawn' means it never ran.
    proc.on('error', (err: NodeJS.ErrnoException) => {
      if (proc.pid !== undefined) return;
      // ENOENT names a missing program, or a missing working directory.
      const failure =
        err.code === 'ENOENT' && existsSync(opts.cwd) ? new ProgramNotFoundError(cmd) : new Error(`${name} (${cmd}) could not be started: ${err.message}`);
      reject(failure);
      settleExit(null);
      for (const listener of spawnFailureListeners) listener(failure);
    });
  });
  // A caller that only waits for readiness (or `exited`) learns of the failure from the listeners.
  spawned.catch(() => undefined);
  const child: Child = {
    name,
    proc,
    exited,
    spawned,
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
  for (const word of lastWords) {
    try {
      word();
    } catch (err) {
      console.error(err);
    }
  }
}

/** The children alive now (started by startChild, not yet seen to exit or be killed). */
export const liveChildren = (): Child[] => [...live];

/**
 * kill -9 of every live child `keep` does not claim, waiting (bounded) until each is gone: what a
 * scenario started and left behind, whether it passed, failed or threw.
 */
export async function stopStrays(keep: (c: Child) => boolean): Promise<string[]> {
  const strays = [...live].filter((c) => !keep(c));
  await Promise.allSettled(strays.map((c) => c.kill9()));
  return strays.map((c) => c.name);
}

/**
 * Synchronous clean-ups for what is not a child of this process (e.g. the JVMs stack.sh started),
 * run by killAllChildren: on Ctrl-C, SIGTERM, a failed main, an uncaught exception.
 */
const lastWords = new Set<() => void>();
export function onLastWord(word: () => void): () => void {
  lastWords.add(word);
  return () => lastWords.delete(word);
}

/**
 * Runs a harness script's main: its child processes die with it on Ctrl-C, SIGTERM, any failure and
 * any uncaught exception (exit 130, 143 and 1), so no broker or service outlives a run.
 */
export function runHarnessScript(main: () => Promise<void>): void {
  const die = (code: number) => () => {
    killAllChildren();
    process.exit(code);
  };
  process.on('SIGINT', die(130));
  process.on('SIGTERM', die(143));
  const fail = (err: unknown) => {
    console.error(err);
    die(1)();
  };
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  main().catch(fail);
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
