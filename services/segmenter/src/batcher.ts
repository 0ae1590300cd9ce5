import { createHash } from 'node:crypto';

/** Rows one handler call contributes to one table, with the ids that identify them. */
export interface TableRows {
  rows: object[];
  /** One identity per row (event_id, rejection_id, …): the dedup token is derived from them. */
  keys: string[];
}

export interface BatchPart {
  /** Where the rows come from, e.g. `events.core/2/100-199`; part of the dedup token. */
  origin: string;
  tables: Map<string, TableRows>;
}

export interface BatcherOptions {
  /** Flush once this many rows are buffered. */
  maxRows: number;
  /** Flush once the oldest buffered row has waited this long. */
  maxWaitMs: number;
  /**
   * How many handler calls the bus can have in flight at once. When that many are waiting on the
   * buffer nothing more can arrive before one of them returns, so waiting longer only adds latency.
   */
  concurrency: number;
  /** One table's insert; the token makes a repeat of the same block a no-op in ClickHouse. */
  insert(table: string, rows: object[], dedupToken: string): Promise<void>;
  isRetriable(err: unknown): boolean;
  /** Back-off for retriable insert failures, doubled per attempt up to maxDelayMs. */
  retry: { initialDelayMs: number; maxDelayMs: number; budgetMs: number };
  onRetry?(info: { table: string; err: unknown; attempt: number; delayMs: number }): void;
  onInserted?(info: { table: string; rows: number; durationMs: number }): void;
  now?(): number;
  sleep?(ms: number): Promise<void>;
}

interface Generation {
  tables: Map<string, { rows: object[]; hash: ReturnType<typeof createHash>; origins: string[] }>;
  rows: number;
  waiters: { resolve: () => void; reject: (err: unknown) => void }[];
  timer: NodeJS.Timeout | undefined;
  sealed: boolean;
}

/**
 * Collects rows from several handler calls into one insert per table, by size, time or when every
 * possible handler call is waiting. A handler's `add` resolves only after every row it added is in
 * ClickHouse, so the bus commits offsets only for inserted rows; if an insert fails (after retries
 * within the budget) every handler of that flush is rejected and the bus delivers their batches again.
 */
export class InsertBatcher {
  private current: Generation | undefined;
  private chain: Promise<void> = Promise.resolve();
  private draining = false;
  /** Handler calls waiting on any generation, sealed or not. */
  private waiting = 0;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly opts: BatcherOptions) {
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  add(part: BatchPart): Promise<void> {
    let count = 0;
    for (const t of part.tables.values()) count += t.rows.length;
    const gen = this.open();
    for (const [table, t] of part.tables) {
      if (t.rows.length === 0) continue;
      const entry = gen.tables.get(table) ?? { rows: [], hash: createHash('sha256'), origins: [] };
      gen.tables.set(table, entry);
      for (const r of t.rows) entry.rows.push(r);
      entry.origins.push(part.origin);
      // One update per part, not two per row: the same bytes (every key followed by a newline), so
      // the same token, for a fraction of the calls into the hash.
      if (t.keys.length > 0) entry.hash.update(`${t.keys.join('\n')}\n`);
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
    if (this.draining || gen.rows >= this.opts.maxRows || this.waiting >= this.opts.concurrency) this.seal(gen);
    return done;
  }

  /** Flushes what is buffered now and from then on flushes every add at once (shutdown). */
  async drain(): Promise<void> {
    this.draining = true;
    if (this.current) this.seal(this.current);
    await this.chain;
  }

  private open(): Generation {
    if (this.current && !this.current.sealed) return this.current;
    const gen: Generation = { tables: new Map(), rows: 0, waiters: [], timer: undefined, sealed: false };
    gen.timer = setTimeout(() => this.seal(gen), this.opts.maxWaitMs);
    this.current = gen;
    return gen;
  }

  private seal(gen: Generation) {
    if (gen.sealed) return;
    gen.sealed = true;
    clearTimeout(gen.timer);
    if (this.current === gen) this.current = undefined;
    // Flushes run one after another: at most one insert per table in flight.
    this.chain = this.chain.then(() => this.flush(gen));
  }

  private async flush(gen: Generation): Promise<void> {
    try {
      // A stable table order keeps the work of a redelivered batch identical.
      for (const table of [...gen.tables.keys()].sort()) {
        const entry = gen.tables.get(table) as { rows: object[]; hash: ReturnType<typeof createHash>; origins: string[] };
        const token = `${table}:${entry.hash.update(entry.origins.join(',')).digest('hex')}`;
        await this.insertWithRetry(table, entry.rows, token);
      }
      for (const w of gen.waiters) w.resolve();
    } catch (err) {
      for (const w of gen.waiters) w.reject(err);
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
