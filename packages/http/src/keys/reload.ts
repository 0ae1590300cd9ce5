import { readFile } from 'node:fs/promises';
import { Registry } from 'prom-client';
import { parseKeysFile, sha256Hex, type KeyRing, type Logger } from '@evp/core';
import { createKeysFileMetrics } from '../metrics';

export interface KeysReloadOptions {
  path: string;
  ring: KeyRing;
  logger: Logger;
  /** How often the file is read (default 2 s): a change applies within this on every replica. */
  intervalMs?: number;
  /** Where the reload series are registered (a new registry by default, returned as `metrics`). */
  metrics?: Registry;
}

export type KeysReloadOutcome = 'unchanged' | 'applied' | 'rejected';

export interface KeysReloader {
  /** Reads the file now; the timer calls it, tests call it to avoid waiting. */
  check(): Promise<KeysReloadOutcome>;
  readonly metrics: Registry;
  close(): void;
}

/**
 * Reloads the keys file on change, without a restart. Polled, not watched: a file swapped by a
 * rename, a Kubernetes secret's symlink flip or an editor's save-as all change the content, and
 * reading a few KiB every 2 s costs nothing. A file that cannot be read, is not JSON or fails the
 * schema leaves the keys in use untouched (a half-written or mistyped file must never lock every
 * client out): the error is logged once per distinct content, counted in
 * `keys_reloads_total{outcome="rejected"}`, and `keys_file_valid` stays 0 until a good file lands.
 */
export function watchKeysFile(opts: KeysReloadOptions): KeysReloader {
  const registry = opts.metrics ?? new Registry();
  const { reloads, valid, loaded } = createKeysFileMetrics(registry);
  reloads.inc({ outcome: 'applied' }, 0);
  reloads.inc({ outcome: 'rejected' }, 0);
  valid.set(1);
  // The ring was built from the file at start; its content is what the first read compares against.
  let seen: string | undefined;
  let running: Promise<KeysReloadOutcome> | undefined;
  const count = () => opts.ring.keysCount();
  loaded.set(count());

  async function read(): Promise<KeysReloadOutcome> {
    let text: string;
    try {
      text = await readFile(opts.path, 'utf8');
    } catch (err) {
      return reject(`keys file ${opts.path} cannot be read: ${(err as Error).message}`, `read:${(err as NodeJS.ErrnoException).code}`);
    }
    const digest = sha256Hex(text);
    if (seen === undefined) {
      // First look: the ring already holds this content (built from it at start) unless it changed since.
      seen = digest;
      if (opts.ring.sourceDigest === undefined || opts.ring.sourceDigest === digest) return 'unchanged';
    } else if (digest === seen) return 'unchanged';
    try {
      opts.ring.replace(parseKeysFile(text, opts.path), digest);
    } catch (err) {
      return reject((err as Error).message, digest);
    }
    seen = digest;
    reloads.inc({ outcome: 'applied' });
    valid.set(1);
    loaded.set(count());
    opts.logger.info({ path: opts.path, keys: count() }, 'keys file reloaded');
    return 'applied';
  }

  function reject(message: string, what: string): KeysReloadOutcome {
    valid.set(0);
    if (seen === what) return 'unchanged';
    seen = what;
    reloads.inc({ outcome: 'rejected' });
    opts.logger.error({ path: opts.path, problem: message }, 'keys file rejected: the last good keys stay in use until it is fixed');
    return 'rejected';
  }

  // One read at a time: a slow disk never stacks reads, and a test's check() waits for the timer's.
  const check = () => (running ??= read().finally(() => (running = undefined)));
  const timer = setInterval(() => void check(), opts.intervalMs ?? 2_000);
  timer.unref();
  return { check, metrics: registry, close: () => clearInterval(timer) };
}
