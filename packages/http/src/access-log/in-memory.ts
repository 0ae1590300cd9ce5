import type { AccessEntry } from './model';
import type { AccessLogStorage, ChainHead } from './log';

/** The embedded adapter (npm start, unit tests): one process, gone at exit. `entries` is exposed for tamper tests. */
export function createInMemoryAccessLogStorage(): AccessLogStorage & { entries: Map<string, AccessEntry[]>; heads: Map<string, ChainHead> } {
  const entries = new Map<string, AccessEntry[]>();
  const heads = new Map<string, ChainHead>();
  return {
    entries,
    heads,
    async head(appId) {
      return heads.get(appId);
    },
    async tryAppend(appId, expected, entry) {
      const held = heads.get(appId);
      if (held?.seq !== expected?.seq || held?.hash !== expected?.hash) return false;
      const list = entries.get(appId) ?? [];
      list.push(entry);
      entries.set(appId, list);
      heads.set(appId, { seq: entry.seq, hash: entry.hash });
      return true;
    },
    async range(appId, fromSeq, toSeq, count) {
      return (entries.get(appId) ?? []).filter((e) => e.seq >= fromSeq && e.seq <= toSeq).slice(0, count);
    },
    async rangeBack(appId, beforeSeq, count) {
      return (entries.get(appId) ?? [])
        .filter((e) => e.seq <= beforeSeq)
        .reverse()
        .slice(0, count);
    },
    async first(appId) {
      return entries.get(appId)?.[0]?.seq;
    },
    async apps() {
      return [...entries.keys()].sort();
    },
    async close() {},
  };
}
