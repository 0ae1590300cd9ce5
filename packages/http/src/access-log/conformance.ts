import { entryHash, type AccessEntry } from './model';
import type { AccessLog } from './log';

/** Direct edits of the stored entries, as someone with write access to the store could make them. */
export interface Tamper {
  modify(appId: string, seq: number, patch: Partial<AccessEntry>): Promise<void>;
  remove(appId: string, seq: number): Promise<void>;
}

const read = (appId: string, i: number, extra: Record<string, unknown> = {}) => ({
  appId,
  keyId: i % 2 === 0 ? 'api-1' : 'analyst-1',
  role: i % 2 === 0 ? 'api' : 'analyst',
  route: i % 3 === 0 ? 'SQL' : 'GET /v1/inspect/events',
  person: i % 4 === 0 ? `u-${i}` : null,
  rows: i,
  ...extra,
});

/**
 * One suite for every access log adapter. `make` gives a log on a fresh key space (its clock at
 * `clock.t`), `peer` a second handle on the same space (another process), `tamper` direct edits.
 */
export function describeAccessLogConformance(name: string, make: () => Promise<{ log: AccessLog; peer: AccessLog; tamper: Tamper; clock: { t: number } }>) {
  describe(`AccessLog conformance: ${name}`, () => {
    it('numbers each app’s entries 1, 2, 3 and links each to the previous one’s hash', async () => {
      const { log } = await make();
      const a1 = await log.append(read('app-a', 1));
      const b1 = await log.append(read('app-b', 1));
      const a2 = await log.append(read('app-a', 2, { statement: 'SELECT 1' }));
      expect([a1.seq, b1.seq, a2.seq]).toEqual([1, 1, 2]);
      expect(a1.prev_hash).toBe('0'.repeat(64));
      expect(a2.prev_hash).toBe(a1.hash);
      expect(a2.statement_hash).toBe('e004ebd5b5532a4b85984a62f8ad48a81aa3460c1ca07701f386135d72cdecf5');
      expect(await log.verify('app-a')).toEqual({ ok: true, entries: 2, head: { seq: 2, hash: a2.hash } });
      expect(await log.apps()).toEqual(['app-a', 'app-b']);
    });

    it('lists one app’s reads newest first, filtered, in pages that join without gaps or repeats', async () => {
      const { log, clock } = await make();
      for (let i = 1; i <= 24; i++) {
        clock.t = 1_700_000_000_000 + i * 1000;
        await log.append(read('app-p', i));
        await log.append(read('app-q', i));
      }
      const all = await log.list('app-p', { limit: 100 });
      expect(all.data.map((e) => e.seq)).toEqual(Array.from({ length: 24 }, (_, i) => 24 - i));
      expect(all.next).toBeUndefined();
      expect(all.data.every((e) => e.app_id === 'app-p')).toBe(true);

      const seen: number[] = [];
      let before: number | undefined;
      for (let page = 0; page < 10; page++) {
        const p = await log.list('app-p', { limit: 5, ...(before === undefined ? {} : { before }) });
        seen.push(...p.data.map((e) => e.seq));
        if (p.next === undefined) break;
        before = p.next;
      }
      expect(seen).toEqual(all.data.map((e) => e.seq));

      const sql = await log.list('app-p', { limit: 100, route: 'SQL', keyId: 'analyst-1' });
      expect(sql.data.map((e) => e.seq)).toEqual([21, 15, 9, 3]);
      expect((await log.list('app-p', { limit: 100, person: 'u-8' })).data.map((e) => e.seq)).toEqual([8]);
      const span = await log.list('app-p', { limit: 100, from: 1_700_000_010_000, to: 1_700_000_013_000 });
      expect(span.data.map((e) => e.seq)).toEqual([12, 11, 10]);
    });

    it('keeps one chain when two processes append to the same app at once', async () => {
      const { log, peer } = await make();
      await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? log : peer).append(read('app-c', i))));
      const page = await peer.list('app-c', { limit: 100 });
      expect(page.data.map((e) => e.seq).sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect(await log.verify('app-c')).toMatchObject({ ok: true, entries: 40 });
    });

    it('reports a modified entry at its position', async () => {
      const { log, tamper } = await make();
      for (let i = 1; i <= 6; i++) await log.append(read('app-t', i));
      await tamper.modify('app-t', 4, { person: 'someone-else' });
      expect(await log.verify('app-t')).toEqual({ ok: false, seq: 4, reason: 'hash_mismatch', entries: 3 });
    });

    it('reports a deleted entry at its position, and a deleted tail at its first missing seq', async () => {
      const { log, tamper } = await make();
      for (let i = 1; i <= 6; i++) await log.append(read('app-d', i));
      for (let i = 1; i <= 6; i++) await log.append(read('app-e', i));
      await tamper.remove('app-d', 3);
      expect(await log.verify('app-d')).toEqual({ ok: false, seq: 3, reason: 'missing_entry', entries: 2 });
      await tamper.remove('app-e', 6);
      await tamper.remove('app-e', 5);
      expect(await log.verify('app-e')).toEqual({ ok: false, seq: 5, reason: 'head_mismatch', entries: 4 });
    });

    it('reports an entry rewritten with a recomputed hash at the next link', async () => {
      const { log, tamper } = await make();
      for (let i = 1; i <= 5; i++) await log.append(read('app-r', i));
      const [e2] = (await log.list('app-r', { limit: 1, before: 3 })).data;
      const forged = { ...(e2 as AccessEntry), rows: 0 };
      await tamper.modify('app-r', 2, { rows: 0, hash: entryHash(forged) });
      expect(await log.verify('app-r')).toEqual({ ok: false, seq: 3, reason: 'link_mismatch', entries: 2 });
    });
  });
}
