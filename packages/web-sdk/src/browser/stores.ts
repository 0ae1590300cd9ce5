/// <reference lib="dom" />
import type { AsyncStore, SyncStore } from '../core/ports';

/** A Map as the durable store: when IndexedDB is unavailable (private modes, SSR, tests). */
export function memoryStore(): AsyncStore {
  const m = new Map<string, unknown>();
  return {
    async list<T>(prefix: string) {
      return [...m.entries()].filter(([k]) => k.startsWith(prefix)).sort(([a], [b]) => (a < b ? -1 : 1)) as [string, T][];
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
    r.onerror = () => fail(r.error ?? new Error('IndexedDB request failed'));
  });

/** IndexedDB (database `evp`, one object store `q`), shared by the tabs; null when it cannot open. */
export async function idbStore(name: string): Promise<AsyncStore | null> {
  if (typeof indexedDB === 'undefined') return null;
  const open = indexedDB.open(name, 1);
  open.onupgradeneeded = () => open.result.createObjectStore('q');
  let db: IDBDatabase;
  try {
    db = await req(open);
  } catch {
    return null;
  }
  const tx = (mode: IDBTransactionMode) => db.transaction('q', mode).objectStore('q');
  return {
    async list<T>(prefix: string) {
      const range = IDBKeyRange.bound(prefix, `${prefix}\uffff`);
      const s = tx('readonly');
      const [keys, values] = await Promise.all([req(s.getAllKeys(range)), req(s.getAll(range))]);
      return keys.map((k, i) => [k as string, values[i] as T]);
    },
    write(puts, dels) {
      const s = tx('readwrite');
      for (const k of dels) s.delete(k);
      for (const [k, v] of puts) s.put(v, k);
      return new Promise((ok, fail) => {
        s.transaction.oncomplete = () => ok();
        s.transaction.onerror = s.transaction.onabort = () => fail(s.transaction.error ?? new Error('IndexedDB write aborted'));
      });
    },
  };
}

/** localStorage as the shared synchronous state, or a Map when it is unavailable or full. */
export function sharedStore(): SyncStore {
  const m = new Map<string, string>();
  let ls: Storage | undefined;
  try {
    ls = window.localStorage;
    ls.setItem('evp:t', '1');
    ls.removeItem('evp:t');
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
