import { sha256Hex } from '@evp/core';

/** Rows one handler call contributes to one table, with the ids that identify them. */
export interface TableRows<S = unknown> {
  rows: object[];
  /** One identity per row (event_id, rejection_id, …): the dedup token is derived from them. */
  keys: string[];
  /** The message each row was read from: what is dead-lettered when the row alone is refused. */
  sources: S[];
}

export interface BatchPart<S = unknown> {
  tables: Map<string, TableRows<S>>;
}

/** A row ClickHouse refused on its own, for a reason no retry cures. */
export interface RefusedRow<S = unknown> {
  table: string;
  source: S;
  err: unknown;
}

export interface BatcherOptions<S = unknown> {
  /** Flush once this many rows are buffered. */
  maxRows: number;
  /** Flush once the oldest buffered row has waited this long. */
  maxWaitMs: number;
  /**
   * How many handler calls the bus can have in flight at once. When that many are waiting on the
   * buffer nothing more can arrive before one of them returns, so waiting longer only adds latency.
   */
  concurrency: number;
  /**
   * When set, a generation is also sealed as soon as no flush is running (once the handler calls of
   * the same fetch joined it), but no sooner than this long after the previous flush began. Rows
   * then leave at once when the store is idle and gather while an insert runs, so inserts grow with
   * the load by themselves; the interval caps the inserts per second (each costs the engine a fixed
   * ≈ 20 ms of CPU on chdb). maxRows, maxWaitMs and every caller waiting stay the other triggers.
   */
  idleFlushIntervalMs?: number;
  /** One table's insert; the token makes a repeat of the same block a no-op in ClickHouse. */
  insert(table: string, rows: object[], dedupToken: string): Promise<void>;
  isRetriable(err: unknown): boolean;
  /**
   * Whether a non-retriable insert failure may be the fault of some rows (bad data) rather than of
   * the statement or the target (a missing table): such an insert is bisected to find the rows.
   */
  isRowFault(err: unknown): boolean;
  /**
   * Takes the rows refused on their own to the dead-letter topic; the flush's handlers resolve (and
   * the bus commits) only after it did. If it throws, every handler of the flush is rejected.
   */
  deadLetter(refused: RefusedRow<S>[]): Promise<void>;
  /** Back-off for retriable insert failures, doubled per attempt up to maxDelayMs. */
  retry: { initialDelayMs: number; maxDelayMs: number; budgetMs: number };
  onRetry?(info: { table: string; err: unknown; attempt: number; delayMs: number }): void;
  onInserted?(info: { table: string; rows: number; durationMs: number }): void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

interface Generation<S> {
  tables: Map<string, TableRows<S>>;
  rows: number;
  waiters: { resolve: () => void; reject: (err: unknown) => void }[];
  timer: NodeJS.Timeout | undefined;
  idleTimer?: NodeJS.Timeout | undefined;
  sealed: boolean;
}

/**
 * Collects rows from several handler calls into one insert per table, by size, time or when every
 * possible handler call is waiting. A handler's `add` resolves only after every row it added is in
 * ClickHouse (or dead-lettered), so the bus commits offsets only for rows that are stored; if an
 * insert fails (after retries within the budget) every handler of that flush is rejected and the bus
 * delivers their batches again. An insert refused for a reason no retry cures is bisected instead:
 * the rows refused on their own go to `deadLetter`, every other row is inserted.
 */
export class InsertBatcher<S = unknown> {
  private current: Generation<S> | undefined;
  private chain: Promise<void> = Promise.resolve();
  private draining = false;
  /** Handler calls waiting on any generation, sealed or not. */
  private waiting = 0;
  /** Sealed generations not yet flushed. */
  private unflushed = 0;
  private lastSealAt = -Infinity;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly opts: BatcherOptions<S>) {
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  /**
   * Buffers a handler call's rows; resolves once they are stored. `flushNow` seals the buffer at once:
   * a large batch handed over in slices inserts one slice while the next is decoded.
   */
  add(part: BatchPart<S>, opts: { flushNow?: boolean } = {}): Promise<void> {
    let count = 0;
    for (const t of part.tables.values()) count += t.rows.length;
    const gen = this.open();
    for (const [table, t] of part.tables) {
      if (t.rows.length === 0) continue;
      const entry = gen.tables.get(table) ?? { rows: [], keys: [], sources: [] };
      gen.tables.set(table, entry);
      for (let i = 0; i < t.rows.length; i++) {
        entry.rows.push(t.rows[i] as object);
        entry.keys.push(t.keys[i] as string);
        entry.sources.push(t.sources[i] as S);
      }
    }
    gen.rows += count;
    this.waiting += 1;
    const done = new Promise<void>((resolve, reject) =>
      gen.waiters.push({
        resolve: () => {
          this.waiting -= 1;
          resolve();
        },
        reject: (err) => {
          this.waiting -= 1;
          reject(err);
        },
      }),
    );
    if (opts.flushNow || this.draining || gen.rows >= this.opts.maxRows || this.waiting >= this.opts.concurrency) this.seal(gen);
    return done;
  }

  /** Flushes what is buffered now and from then on flushes every add at once (shutdown). */
  async drain(): Promise<void> {
    this.draining = true;
    if (this.current) this.seal(this.current);
    await this.chain;
  }

  private open(): Generation<S> {
    if (this.current && !this.current.sealed) return this.current;
    const gen: Generation<S> = { tables: new Map(), rows: 0, waiters: [], timer: undefined, sealed: false };
    gen.timer = setTimeout(() => this.seal(gen), this.opts.maxWaitMs);
    this.current = gen;
    // setImmediate, not a microtask: the other handler calls of the same fetch add their rows first.
    if (this.opts.idleFlushIntervalMs !== undefined) setImmediate(() => this.sealIfIdle(gen));
    return gen;
  }

  private sealIfIdle(gen: Generation<S>) {
    const interval = this.opts.idleFlushIntervalMs;
    if (interval === undefined || gen.sealed || this.unflushed > 0) return;
    const wait = this.lastSealAt + interval - this.now();
    if (wait <= 0) this.seal(gen);
    else if (gen.idleTimer === undefined) {
      // A timer can fire a millisecond before the clock says the interval is over: the look again
      // then sets a new one. (Keeping the spent timer left the rows to maxWaitMs: a second's wait,
      // several times a minute, at 5,000 events/s.)
      gen.idleTimer = setTimeout(() => {
        gen.idleTimer = undefined;
        this.sealIfIdle(gen);
      }, wait);
    }
  }

  private seal(gen: Generation<S>) {
    if (gen.sealed) return;
    gen.sealed = true;
    clearTimeout(gen.timer);
    clearTimeout(gen.idleTimer);
    if (this.current === gen) this.current = undefined;
    this.unflushed += 1;
    this.lastSealAt = this.now();
    // Flushes run one after another: at most one insert per table in flight.
    this.chain = this.chain.then(async () => {
      await this.flush(gen);
      this.unflushed -= 1;
      if (this.current) this.sealIfIdle(this.current);
    });
  }

  private async flush(gen: Generation<S>): Promise<void> {
    try {
      const refused: RefusedRow<S>[] = [];
      // A stable table order keeps the work of a redelivered batch identical.
      for (const table of [...gen.tables.keys()].sort()) {
        const entry = gen.tables.get(table) as TableRows<S>;
        await this.insertIsolating(table, entry, 0, entry.rows.length, refused);
      }
      // Dead letters are written before any handler returns: a row leaves the partition only as a
      // stored row or as a dead letter, never as neither.
      if (refused.length > 0) await this.opts.deadLetter(refused);
      for (const w of gen.waiters) w.resolve();
    } catch (err) {
      for (const w of gen.waiters) w.reject(err);
    }
  }

  /**
   * Inserts rows [from, to); when ClickHouse refuses them for a reason a retry cannot cure and the
   * rows may be at fault, bisects until the rows refused on their own are found (added to
   * `refused`) and every other row is in. One bad row among n costs about 2·log2(n) inserts.
   */
  private async insertIsolating(table: string, t: TableRows<S>, from: number, to: number, refused: RefusedRow<S>[]): Promise<void> {
    const whole = from === 0 && to === t.rows.length;
    const rows = whole ? t.rows : t.rows.slice(from, to);
    const keys = whole ? t.keys : t.keys.slice(from, to);
    try {
      await this.insertWithRetry(table, rows, dedupToken(table, keys));
    } catch (err) {
      if (this.opts.isRetriable(err) || !this.opts.isRowFault(err)) throw err;
      if (to - from === 1) {
        refused.push({ table, source: t.sources[from] as S, err });
        return;
      }
      const mid = from + Math.ceil((to - from) / 2);
      await this.insertIsolating(table, t, from, mid, refused);
      await this.insertIsolating(table, t, mid, to, refused);
    }
  }

  private async insertWithRetry(table: string, rows: object[], token: string): Promise<void> {
    const { initialDelayMs, maxDelayMs, budgetMs } = this.opts.retry;
    const giveUpAt = this.now() + budgetMs;
    let delayMs = initialDelayMs;
    for (let attempt = 1; ; attempt++) {
      const started = this.now();
      try {
        await this.opts.insert(table, rows, token);
        this.opts.onInserted?.({ table, rows: rows.length, durationMs: this.now() - started });
        return;
      } catch (err) {
        // Past the budget the batch goes back to the bus, which delivers it again after its own
        // back-off: a handler must not hold a Kafka batch beyond the consumer's session timeout.
        if (!this.opts.isRetriable(err) || this.now() + delayMs > giveUpAt) throw err;
        this.opts.onRetry?.({ table, err, attempt, delayMs });
        await this.sleep(delayMs);
        delayMs = Math.min(delayMs * 2, maxDelayMs);
      }
    }
  }
}

/**
 * The insert's dedup token, from the ids of its rows alone: the same rows again (a redelivery) are a
 * no-op in ClickHouse, and new rows never are. Log coordinates are not part of it: offsets restart
 * (a recreated topic, the in-process bus on every start), and a token made of them dropped new rows.
 */
export function dedupToken(table: string, keys: readonly string[]): string {
  return `${table}:${sha256Hex(`${keys.join('\n')}\n`)}`;
}
