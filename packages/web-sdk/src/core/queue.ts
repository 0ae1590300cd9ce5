import { BATCH_MAX_BYTES, BATCH_MAX_EVENTS } from './options';
import type { AsyncStore } from './ports';

/** One stored record: an event of an envelope, or a catalog record. */
export interface Queued {
  /** When it was recorded, epoch ms. */
  at: number;
  /** Its JSON size in UTF-8 bytes (what the keepalive budget and the platform's limits count). */
  n: number;
  /** Ingest route below `{apiUrl}/ingest/`: `log` or `catalog/<kind>`. */
  p: string;
  /** For logs: user, session start and tz offset of its envelope. */
  u?: string;
  s?: number;
  z?: number;
  /** The data object (logs) or the record (catalog). */
  e: unknown;
}

/**
 * A batch frozen for upload: every re-send carries exactly these bytes (but for `sent_at`), so the
 * platform's deterministic event ids absorb a retry of a batch that did arrive.
 */
export interface Batch {
  p: string;
  /** Envelope texts without sent_at (logs) or record texts (catalog). */
  parts: string[];
  /** Events or records in it. */
  n: number;
}

export interface QueueBounds {
  maxEvents: number;
  maxBytes: number;
  maxAgeMs: number;
}

/** UTF-8 bytes of a string (the library's texts are JSON, which has no lone surrogate: each counts as the encoder writes it). */
export const utf8Bytes = (s: string): number => new TextEncoder().encode(s).length;

let counter = 0;
/** Keys sort by time, then by a per-tab counter and a random tail (tabs never collide). */
export const keyAt = (prefix: string, ms: number, rnd: number) =>
  `${prefix}${String(ms).padStart(15, '0')}.${String(counter++ % 1e6).padStart(6, '0')}${Math.floor(rnd * 1e9).toString(36)}`;

const EVENT = 'e:';
export const BATCH = 'b:';

export class Queue {
  /** Events dropped by the bounds since the page loaded (also reported through the debug log). */
  dropped = 0;

  constructor(
    private readonly store: AsyncStore,
    private readonly bounds: () => QueueBounds,
    private readonly random: () => number,
  ) {}

  add(item: Queued): Promise<void> {
    return this.store.write([[keyAt(EVENT, item.at, this.random()), item]], []);
  }

  /**
   * Drops what is over a bound, oldest first; answers how many were dropped. Age is measured from
   * the newest queued event, not from the device clock's now: a clock jumped forward drops nothing.
   */
  async trim(): Promise<number> {
    const { maxEvents, maxBytes, maxAgeMs } = this.bounds();
    const items = await this.store.list<Queued>(EVENT);
    const now = items.reduce((m, [, q]) => Math.max(m, q.at), 0);
    let bytes = items.reduce((a, [, q]) => a + q.n, 0);
    const drop: string[] = [];
    for (const [k, q] of items) {
      if (items.length - drop.length <= maxEvents && bytes <= maxBytes && now - q.at <= maxAgeMs) break;
      drop.push(k);
      bytes -= q.n;
    }
    if (drop.length > 0) await this.store.write([], drop);
    this.dropped += drop.length;
    return drop.length;
  }

  /**
   * Moves the oldest events of one route into one frozen batch, in one atomic write (the batch is
   * stored and its events removed together, so no event is ever in two batches or in none).
   */
  async freeze(envelope: (group: Queued[]) => string, now: number): Promise<[string, Batch] | undefined> {
    // Only the oldest BATCH_MAX_EVENTS are read: draining a long queue is linear, not quadratic.
    const items = await this.store.list<Queued>(EVENT, BATCH_MAX_EVENTS);
    const first = items[0]?.[1];
    if (!first) return undefined;
    const taken: [string, Queued][] = [];
    let bytes = 0;
    for (const it of items) {
      if (it[1].p !== first.p) continue;
      if (taken.length >= BATCH_MAX_EVENTS || (taken.length > 0 && bytes + it[1].n > BATCH_MAX_BYTES)) break;
      taken.push(it);
      bytes += it[1].n;
    }
    const batch = batchOf(
      taken.map(([, q]) => q),
      envelope,
    );
    const key = keyAt(BATCH, now, this.random());
    await this.store.write(
      [[key, batch]],
      taken.map(([k]) => k),
    );
    return [key, batch];
  }

  /** Stores a batch frozen elsewhere (what a page sent while it went away), under its own key. */
  keep(key: string, b: Batch): Promise<void> {
    return this.store.write([[key, b]], []);
  }

  batches(): Promise<[string, Batch][]> {
    return this.store.list<Batch>(BATCH);
  }

  /** Replaces a batch by its halves (413, parts/split.ts), in one write, in its place in the order. */
  split(key: string, halves: Batch[]): Promise<void> {
    return this.store.write(
      halves.map((h, i) => [`${key}.${i}`, h]),
      [key],
    );
  }

  remove(key: string): Promise<void> {
    return this.store.write([], [key]);
  }

  /** Forgets every queued event and batch (consent denied). */
  async clear(): Promise<void> {
    const keys = [...(await this.store.list(EVENT)), ...(await this.batches())].map(([k]) => k);
    if (keys.length > 0) await this.store.write([], keys);
  }
}

/** The frozen form of events of one route: one envelope per user, session and tz (logs), or the records. */
export function batchOf(items: Queued[], envelope: (group: Queued[]) => string): Batch {
  const p = items[0]?.p ?? 'log';
  if (p !== 'log') return { p, parts: items.map((q) => JSON.stringify(q.e)), n: items.length };
  const groups = new Map<string, Queued[]>();
  for (const q of items) {
    const g = `${q.u}\u0000${q.s}\u0000${q.z}`;
    groups.set(g, [...(groups.get(g) ?? []), q]);
  }
  return { p, parts: [...groups.values()].map(envelope), n: items.length };
}

/** The request body of a batch as sent at `sentAt` (ISO): the only bytes that change between re-sends. */
export function batchBody(b: Batch, sentAt: string): string {
  if (b.p !== 'log') return `[${b.parts.join(',')}]`;
  const withSent = b.parts.map((t) => `{"sent_at":"${sentAt}",${t.slice(1)}`);
  return withSent.length === 1 ? withSent[0]! : `[${withSent.join(',')}]`;
}
