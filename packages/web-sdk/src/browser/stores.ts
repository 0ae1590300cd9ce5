/// <reference lib="dom" />
import type { AsyncStore, SyncStore } from '../core/ports';

/** A Map as the durable store: when IndexedDB is unavailable (private modes, SSR, tests). */
export function memoryStore(): AsyncStore {
  const m = new Map<string, unknown>();
  return {
    async list<T>(prefix: string, limit?: number) {
      return ([...m.entries()].filter(([k]) => k.startsWith(prefix)).sort(([a], [b]) => (a < b ? -1 : 1)) as [string, T][]).slice(0, limit);
    },
    async write(puts, dels) {
      for (const k of dels) m.delete(k);
      for (const [k, v] of puts) m.set(k, v);
    },
  };
}

const req = <T>(r: IDBRequest<T>) =>
  new Promise<T>((ok, fail) => {
    r.onsuccess = () => ok(r.result);
    r.onerror = () => fail(r.error ?? Error('IndexedDB failed'));
  });

/** How long IndexedDB may take to open before the page goes on with memory (an open can hang forever). */
const IDB_OPEN_MS = 3000;

/** Opens the database; rejects on a synchronous throw (SecurityError, no IndexedDB at all), an error, or no answer in IDB_OPEN_MS (also a blocked open). */
function openDb(name: string): Promise<IDBDatabase> {
  return new Promise<IDBDatabase>((ok, fail) => {
    const open = indexedDB.open(name, 1);
    open.onupgradeneeded = () => open.result.createObjectStore('q');
    setTimeout(() => fail(Error('IndexedDB: no answer')), IDB_OPEN_MS);
    void req(open).then(ok, fail);
  });
}

/**
 * IndexedDB (database `evp:<appId>`, one object store `q`), shared by the tabs. Made at once and
 * opened on first use (the library starts without waiting for it): when it cannot open, its calls
 * reject and fallbackStore goes on in memory. A closed connection (onclose, onversionchange) is
 * reopened on the next use.
 */
export function idbStore(name: string): AsyncStore {
  let db: Promise<IDBDatabase> | undefined;
  const conn = () => {
    db ??= openDb(name).then((d) => {
      // Another tab upgrading, or the browser closing the connection: reopened on the next use.
      d.onclose = () => (db = undefined);
      d.onversionchange = () => {
        db = undefined;
        d.close();
      };
      return d;
    });
    db.catch(() => (db = undefined));
    return db;
  };
  const tx = async (mode: IDBTransactionMode) => (await conn()).transaction('q', mode).objectStore('q');
  return {
    async list<T>(prefix: string, limit?: number) {
      const range = IDBKeyRange.bound(prefix, `${prefix}\uffff`);
      const s = await tx('readonly');
      const [keys, values] = await Promise.all([req(s.getAllKeys(range, limit)), req(s.getAll(range, limit))]);
      return keys.map((k, i) => [k as string, values[i] as T]);
    },
    async write(puts, dels) {
      const s = await tx('readwrite');
      try {
        for (const k of dels) s.delete(k);
        for (const [k, v] of puts) s.put(v, k);
      } catch (e) {
        // A put that throws (a value IndexedDB cannot store) would leave the others to commit.
        s.transaction.abort();
        throw e;
      }
      return new Promise((ok, fail) => {
        s.transaction.oncomplete = () => ok();
        s.transaction.onerror = s.transaction.onabort = () => fail(s.transaction.error ?? Error('IndexedDB failed'));
      });
    },
  };
}

/**
 * The durable store with a way out: when IndexedDB fails (quota, Safari's "connection lost"), the
 * page goes on with memory, the failed write included, and warns once; what IndexedDB already holds
 * is sent on a later visit.
 */
export function fallbackStore(durable: AsyncStore, warn: (m: string, d?: unknown) => void): AsyncStore {
  const memory = memoryStore();
  let broken = false;
  const run = async <R>(fn: (s: AsyncStore) => Promise<R>): Promise<R> => {
    if (!broken) {
      try {
        return await fn(durable);
      } catch (e) {
        broken = true;
        warn('IndexedDB failed: in memory', e);
      }
    }
    return fn(memory);
  };
  return { list: (p, n) => run((s) => s.list(p, n)), write: (p, d) => run((s) => s.write(p, d)) };
}

/** localStorage as the shared synchronous state, or a Map when it is unavailable or full (or `memory`: never localStorage). */
export function sharedStore(memory = false): SyncStore {
  const m = new Map<string, string>();
  let ls: Storage | undefined;
  try {
    if (!memory) {
      ls = window.localStorage;
      ls.setItem('evp:t', '1');
      ls.removeItem('evp:t');
    }
  } catch {
    ls = undefined;
  }
  const read = (k: string) => {
    try {
      return ls ? ls.getItem(k) : (m.get(k) ?? null);
    } catch {
      return m.get(k) ?? null;
    }
  };
  return {
    get<T>(k: string) {
      const v = read(k);
      if (v === null) return undefined;
      try {
        return JSON.parse(v) as T;
      } catch {
        return undefined;
      }
    },
    set(k, v) {
      const t = JSON.stringify(v);
      m.set(k, t);
      try {
        ls?.setItem(k, t);
      } catch {
        // Quota: the Map keeps it for this page.
      }
    },
    del(k) {
      m.delete(k);
      try {
        ls?.removeItem(k);
      } catch {
        // Nothing to do.
      }
    },
  };
}

/**
 * Storage held back until consent (cookieless while `pending`): the library's state stays in memory
 * and nothing is written to localStorage or IndexedDB (IndexedDB is not even opened); localStorage is
 * still read, so a choice made in another tab is seen. keep() moves what memory holds (deletions too)
 * into the device's storage and uses it from then on.
 */
export function heldStores(shared: SyncStore, durable: () => AsyncStore): { shared: SyncStore; store: AsyncStore; keep: () => Promise<void> } {
  // A key deleted while held is kept as undefined: keep() deletes it from the device too.
  const held = new Map<string, unknown>();
  const memory = memoryStore();
  let real: AsyncStore | undefined;
  let moving: Promise<void> | undefined;
  const on = async () => (await moving, real ?? memory);
  return {
    shared: {
      get: <T>(k: string) => (real || !held.has(k) ? shared.get<T>(k) : (held.get(k) as T | undefined)),
      set: (k, v) => (real ? shared.set(k, v) : void held.set(k, v)),
      del: (k) => (real ? shared.del(k) : void held.set(k, undefined)),
    },
    store: { list: async (p, n) => (await on()).list(p, n), write: async (p, d) => (await on()).write(p, d) },
    keep: (): Promise<void> =>
      (moving ??= (async () => {
        for (const [k, v] of held)
          if (v === undefined) shared.del(k);
          else shared.set(k, v);
        const d = durable();
        const all = await memory.list('');
        if (all.length > 0) await d.write(all, []);
        real = d;
      })()),
  };
}
