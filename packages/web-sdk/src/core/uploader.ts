import { BACKOFF_BASE_MS, BACKOFF_MAX_MS } from './options';
import type { splitBatch } from '../parts/split';
import type { Deps, SendResult } from './ports';
import { batchBody, type Queue, type Queued } from './queue';
import { isoUtc } from './time';

/** What became of the last upload attempt, for status() and the tests. */
export type UploadState = 'idle' | 'backoff' | 'stopped';

const BACKOFF_KEY = 'bo';

/** An answer refusing the call for its user token (`401`/`403` `user_token_*`, the only statuses the platform gives those codes). */
export const tokenRefused = (res: SendResult) =>
  (res.status === 401 || res.status === 403) && /^user_token_/.test((res.body as { error?: { code?: string } } | undefined)?.error?.code ?? '');

/**
 * Sends frozen batches, oldest first, from one tab at a time. A batch is deleted only after a 2xx.
 * 413 splits it; 401/403 stop uploads for this page (the key is wrong: retrying cannot help) and
 * warn; 408/429/5xx and network errors back off (Retry-After when given, shared by the tabs); any
 * other 4xx can never succeed, so the batch is dropped, counted and warned about.
 */
export class Uploader {
  state: UploadState = 'idle';
  /** Events the platform refused for good (a 4xx other than 401/403/408/413/429, or one event over 413). */
  refused = 0;
  private attempt = 0;
  private timer: unknown;
  private running: Promise<void> | undefined;

  constructor(
    private readonly deps: Deps,
    private readonly queue: Queue,
    private readonly cfg: {
      apiUrl: string;
      lock: string;
      prefix: string;
      onAccepted?: (requestId: string) => void;
      token?: () => string | undefined;
      /** The 413 part (parts/split.ts), loaded on the first 413. */
      split: () => Promise<typeof splitBatch>;
    },
    private readonly envelope: (group: Queued[]) => string,
    /** POST with the SDK key and the user token, renewing a refused token once (Client.send). */
    private readonly send: (url: string, body: string) => Promise<SendResult> = (u, b) => deps.transport.post(u, b, false),
  ) {}

  /**
   * One pass: every frozen batch, then freeze and send until the queue is empty or a send fails.
   * `wait` (the app's flush()): when another tab is uploading, wait for it and then pass here too.
   */
  flush(unload = false, wait = false): Promise<void> {
    // The shared backoff is [until, wait]: a device clock set back cannot stretch it past its wait.
    const [until = 0, ms = 0] = this.deps.shared.get<number[]>(this.cfg.prefix + BACKOFF_KEY) ?? [];
    const left = until - this.deps.clock.now();
    const waiting = left > 0 && left <= ms;
    if (waiting) this.schedule(left);
    // One pass per tab at a time; a second call while one runs waits for it. Stopped or backing
    // off, the pass only applies the queue bounds (the queue must not grow without end meanwhile).
    const run = async () => {
      await this.trim();
      if (this.state !== 'stopped' && !waiting) await this.pass(unload);
    };
    // While the page goes away, without the lock: a lock granted after the page froze evicts it
    // from Chromium's back/forward cache; a batch sent by two tabs at once is stored once (event ids).
    this.running ??= (unload ? run() : this.deps.exclusive(this.cfg.lock, run, wait)).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async trim(): Promise<void> {
    const dropped = await this.queue.trim();
    if (dropped > 0) this.deps.warn(`queue full: dropped ${dropped} oldest`);
  }

  private async pass(unload: boolean): Promise<void> {
    let batches = await this.queue.batches();
    for (let rounds = 0; rounds < 50; rounds++) {
      if (batches.length === 0) {
        const frozen = await this.queue.freeze(this.envelope, this.deps.clock.now());
        if (!frozen) return;
        batches = [frozen];
      }
      const [key, batch] = batches.shift()!;
      const url = `${this.cfg.apiUrl}/ingest/${batch.p}`;
      const body = batchBody(batch, isoUtc(this.deps.clock.now()));
      const res = await (unload ? this.deps.transport.post(url, body, true, this.cfg.token?.()) : this.send(url, body));
      // Sent while the page unloads (a beacon, or a keepalive fetch whose answer the page may not
      // live to read): the batch stays for the next visit; no backoff, the network did not fail.
      if (res.beacon || (unload && res.status === 0)) return;
      const s = res.status;
      if (s >= 200 && s < 300) {
        this.attempt = 0;
        this.state = 'idle';
        await this.queue.remove(key);
        const id = (res.body as { request_id?: unknown } | undefined)?.request_id;
        if (typeof id === 'string') this.cfg.onAccepted?.(id);
      } else if (s === 413) {
        // The part not loading (offline now, say) is a network failure: kept, and retried later.
        const split = await this.cfg.split().catch(() => undefined);
        if (!split) return this.backoff(undefined);
        const halves = split(batch);
        if (halves) await this.queue.split(key, halves);
        else {
          this.refused += batch.n;
          this.deps.warn('413: an event too large, dropped');
          await this.queue.remove(key);
        }
        batches = await this.queue.batches();
      } else if (tokenRefused(res)) {
        // The user token, still refused after a renewal (or none could be had): kept and retried
        // later (setUserToken() retries at once); the SDK key is fine.
        this.backoff(undefined);
        return;
      } else if (s === 401 || s === 403) {
        this.state = 'stopped';
        this.deps.warn(`${s}: SDK key refused, uploads stopped`);
        return;
      } else if (s === 0 || s === 408 || s === 429 || s >= 500) {
        this.backoff(res.retryAfter);
        return;
      } else {
        this.refused += batch.n;
        this.deps.warn(`${s}: ${batch.n} events refused, dropped`, res.body);
        await this.queue.remove(key);
      }
    }
  }

  private backoff(retryAfter: number | undefined): void {
    const exp = Math.min(BACKOFF_BASE_MS * 2 ** this.attempt++, BACKOFF_MAX_MS);
    const wait = retryAfter !== undefined ? retryAfter * 1000 : exp / 2 + (exp / 2) * this.deps.random();
    this.state = 'backoff';
    this.deps.shared.set(this.cfg.prefix + BACKOFF_KEY, [this.deps.clock.now() + wait, wait]);
    this.schedule(wait);
  }

  private schedule(ms: number): void {
    if (this.timer !== undefined) this.deps.clock.clearTimeout(this.timer);
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, ms);
  }

  /** Back online: the backoff was for the network, so send now. */
  retryNow(): Promise<void> {
    this.attempt = 0;
    this.deps.shared.del(this.cfg.prefix + BACKOFF_KEY);
    if (this.state === 'backoff') this.state = 'idle';
    return this.flush();
  }
}
