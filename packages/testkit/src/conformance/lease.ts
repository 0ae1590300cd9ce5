import type { LeaseStore } from '@evp/core';
import { waitFor } from '../wait-for';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One suite for every LeaseStore adapter (the Redis one, the in-memory one). `make` gives a store on
 * a fresh key space and `peer`, a second handle on the same space, as another replica's (the
 * in-memory store's peer is itself: one process). Holds lapse in real time, so the lapse tests wait
 * for it by polling with a deadline; each TTL is a few hundred ms.
 */
export function describeLeaseConformance(name: string, make: () => Promise<{ store: LeaseStore; peer: LeaseStore }>) {
  describe(`LeaseStore conformance: ${name}`, () => {
    it('a free lease is taken by the first holder; another is refused while it holds; the holder takes it again', async () => {
      const { store, peer } = await make();
      expect(await store.holderOf('job')).toBeUndefined();
      expect(await store.acquire('job', 'a', 60_000)).toBe(true);
      expect(await peer.acquire('job', 'b', 60_000)).toBe(false);
      expect([await store.holderOf('job'), await peer.holderOf('job')]).toEqual(['a', 'a']);
      expect(await peer.acquire('job', 'a', 60_000)).toBe(true);
      // Another name is another lease.
      expect(await peer.acquire('other-job', 'b', 60_000)).toBe(true);
      expect([await store.holderOf('job'), await store.holderOf('other-job')]).toEqual(['a', 'b']);
    });

    it('of holders racing for a free lease on both handles, exactly one takes it', async () => {
      const { store, peer } = await make();
      const holders = Array.from({ length: 10 }, (_, i) => `h${i}`);
      const won = await Promise.all(holders.map((h, i) => (i % 2 === 0 ? store : peer).acquire('race', h, 60_000)));
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await store.holderOf('race')).toBe(holders[won.indexOf(true)]);
    });

    it('only the holder renews or releases; a release frees it for the next holder', async () => {
      const { store, peer } = await make();
      expect(await store.renew('job', 'a', 60_000)).toBe(false);
      expect(await store.release('job', 'a')).toBe(false);
      expect(await store.acquire('job', 'a', 60_000)).toBe(true);
      expect(await peer.renew('job', 'b', 60_000)).toBe(false);
      expect(await peer.release('job', 'b')).toBe(false);
      expect(await peer.holderOf('job')).toBe('a');
      expect(await peer.renew('job', 'a', 60_000)).toBe(true);
      expect(await peer.release('job', 'a')).toBe(true);
      expect(await store.holderOf('job')).toBeUndefined();
      expect(await store.release('job', 'a')).toBe(false);
      expect(await peer.acquire('job', 'b', 60_000)).toBe(true);
      expect(await store.holderOf('job')).toBe('b');
    });

    it('a hold not renewed lapses after its TTL: another holder takes it then, not before; the old holder can no longer renew', async () => {
      const { store, peer } = await make();
      const ttl = 300;
      const asked = Date.now();
      expect(await store.acquire('job', 'a', ttl)).toBe(true);
      expect(await peer.acquire('job', 'b', 60_000)).toBe(false);
      await waitFor(() => peer.acquire('job', 'b', 60_000), { timeoutMs: 5_000, intervalMs: 10, what: 'the lapsed lease taken by b' });
      // Taken no earlier than the TTL after a's acquire was sent (a few ms of rounding allowed).
      expect(Date.now() - asked).toBeGreaterThanOrEqual(ttl - 5);
      expect(await store.renew('job', 'a', 60_000)).toBe(false);
      expect(await store.holderOf('job')).toBe('b');
    });

    it('a renew counts the TTL again from the renew: the hold outlives the first TTL', async () => {
      const { store, peer } = await make();
      expect(await store.acquire('job', 'a', 1_000)).toBe(true);
      expect(await store.renew('job', 'a', 60_000)).toBe(true);
      // Past the first TTL: still a's (the sleep is the time that must pass, not a wait for something).
      await sleep(1_300);
      expect(await peer.acquire('job', 'b', 60_000)).toBe(false);
      expect(await peer.holderOf('job')).toBe('a');
      // A lapsed hold is nobody's: its holder neither renews nor releases it.
      expect(await store.acquire('short', 'a', 100)).toBe(true);
      await waitFor(async () => (await store.holderOf('short')) === undefined, { timeoutMs: 5_000, intervalMs: 10, what: 'the short hold to lapse' });
      expect([await store.renew('short', 'a', 60_000), await store.release('short', 'a')]).toEqual([false, false]);
    });
  });
}
