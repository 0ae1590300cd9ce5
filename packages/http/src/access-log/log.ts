import { InfraError } from '@evp/core';
import { chainEntry, type AccessEntry, type AccessRead } from './model';
import { ChainVerifier, type ChainVerdict } from './verify';

export interface ChainHead {
  seq: number;
  hash: string;
}

/**
 * What an adapter stores: per app, entries numbered 1, 2, 3 … and a head (the last seq and hash),
 * appended only by compare-and-set on the head, so writers in several processes never fork a chain.
 */
export interface AccessLogStorage {
  head(appId: string): Promise<ChainHead | undefined>;
  /** Appends `entry` if the head is still `expected`; false if another writer moved it first. */
  tryAppend(appId: string, expected: ChainHead | undefined, entry: AccessEntry): Promise<boolean>;
  /** Entries with seq in [fromSeq, toSeq], ascending, at most `count`. */
  range(appId: string, fromSeq: number, toSeq: number, count: number): Promise<AccessEntry[]>;
  /** Entries with seq ≤ beforeSeq, descending, at most `count`. */
  rangeBack(appId: string, beforeSeq: number, count: number): Promise<AccessEntry[]>;
  /** The lowest seq still stored (1 unless trimmed), undefined when the app has none. */
  first(appId: string): Promise<number | undefined>;
  /** Apps with at least one entry. */
  apps(): Promise<string[]>;
  close(): Promise<void>;
}

export interface AccessFilter {
  /** Epoch ms, inclusive. */
  from?: number;
  /** Epoch ms, exclusive. */
  to?: number;
  keyId?: string;
  role?: string;
  route?: string;
  person?: string;
  /** Entries with a lower seq than this (the previous page's cursor). */
  before?: number;
  limit: number;
}

export interface AccessPage {
  data: AccessEntry[];
  /** The seq to pass as `before` for the next page; absent on the last page. */
  next?: number;
}

/** The access log port (docs/privacy.md, "Access log"): append one read, list an app's reads, verify a chain. */
export interface AccessLog {
  /** Appends one read; throws InfraError('access-log') when it cannot (the caller then refuses the read). */
  append(read: AccessRead): Promise<AccessEntry>;
  /** Newest first, filtered; one call scans at most SCAN_MAX entries and then answers a cursor. */
  list(appId: string, filter: AccessFilter): Promise<AccessPage>;
  verify(appId: string): Promise<ChainVerdict>;
  apps(): Promise<string[]>;
  close(): Promise<void>;
}

/** Most entries one list call reads: a rare filter over a long log answers a partial page and a cursor instead of scanning it all. */
export const SCAN_MAX = 5000;
const BATCH = 500;
/** Compare-and-set attempts before an append gives up (each loses only to another writer's success). */
const MAX_ATTEMPTS = 100;

export interface AccessLogOptions {
  now?: () => number;
}

export function createAccessLog(storage: AccessLogStorage, opts: AccessLogOptions = {}): AccessLog {
  const now = opts.now ?? Date.now;
  const failed = (what: string, err: unknown): never => {
    if (err instanceof InfraError) throw err;
    throw new InfraError('access-log', `${what}: ${(err as Error).message}`, { retriable: true, cause: err });
  };
  const matches = (e: AccessEntry, f: AccessFilter) =>
    (f.from === undefined || e.at >= f.from) &&
    (f.to === undefined || e.at < f.to) &&
    (f.keyId === undefined || e.key_id === f.keyId) &&
    (f.role === undefined || e.role === f.role) &&
    (f.route === undefined || e.route === f.route) &&
    (f.person === undefined || e.person === f.person);

  return {
    async append(read) {
      try {
        for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
          const head = await storage.head(read.appId);
          const entry = chainEntry(read, now(), head);
          if (await storage.tryAppend(read.appId, head, entry)) return entry;
        }
      } catch (err) {
        failed('appending a read', err);
      }
      throw new InfraError('access-log', `appending a read: ${MAX_ATTEMPTS} writers won the head first`, { retriable: true });
    },
    async list(appId, f) {
      try {
        const data: AccessEntry[] = [];
        let cursor = f.before === undefined ? Number.MAX_SAFE_INTEGER : f.before - 1;
        let scanned = 0;
        while (cursor >= 1 && scanned < SCAN_MAX) {
          const batch = await storage.rangeBack(appId, cursor, Math.min(BATCH, SCAN_MAX - scanned));
          if (batch.length === 0) return { data };
          for (const e of batch) {
            scanned += 1;
            cursor = e.seq - 1;
            // Appends are in time order (up to the writers' clock skew): past `from`, older entries cannot match.
            if (f.from !== undefined && e.at < f.from) return { data };
            if (!matches(e, f)) continue;
            data.push(e);
            if (data.length === f.limit) return cursor >= 1 ? { data, next: e.seq } : { data };
          }
        }
        return cursor >= 1 ? { data, next: cursor + 1 } : { data };
      } catch (err) {
        return failed('listing reads', err);
      }
    },
    async verify(appId) {
      const first = await storage.first(appId);
      const head = await storage.head(appId);
      const v = new ChainVerifier(first ?? 1);
      let from = first ?? 1;
      const to = Math.max(head?.seq ?? 0, from);
      for (;;) {
        const batch = await storage.range(appId, from, Number.MAX_SAFE_INTEGER, BATCH);
        if (batch.length === 0 || !v.add(batch)) break;
        from = (batch[batch.length - 1] as AccessEntry).seq + 1;
        if (from > to && batch.length < BATCH) break;
      }
      return v.finish(head);
    },
    apps: () => storage.apps(),
    close: () => storage.close(),
  };
}
