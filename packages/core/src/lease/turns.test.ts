import { createLogger } from '../logger';
import { ManualClock } from '../consumer/clock';
import type { LeaseStore } from '../ports/lease';
import { createInMemoryLeaseStore } from './in-memory';
import { leaseTtlMs, leasedTurns } from './turns';

const TTL = 60_000;

/** Two replicas' jobs on one lease store, everything on one manual clock; the log lines the test reads. */
function twoReplicas(store?: (inner: LeaseStore) => LeaseStore) {
  const clock = new ManualClock(1_000_000);
  const inner = createInMemoryLeaseStore({ now: () => clock.now() });
  const lease = store ? store(inner) : inner;
  const lines: { level: number; msg: string; holder?: string }[] = [];
  const logger = createLogger('test', 'info', { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
  const job = (holder: string) => leasedTurns({ lease, name: 'job', ttlMs: TTL, logger, holder, timers: clock });
  return { clock, lease: inner, lines, a: job('a'), b: job('b') };
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((res) => (resolve = res));
  return { promise, resolve };
}

describe('leasedTurns', () => {
  it('runs a turn only on the holder, which keeps the lease from turn to turn and frees it on release', async () => {
    const { a, b, lease } = twoReplicas();
    expect(await a.run(async () => 'a1')).toEqual({ ran: true, value: 'a1' });
    expect(await b.run(async () => 'b1')).toEqual({ ran: false });
    expect(await a.run(async () => 'a2')).toEqual({ ran: true, value: 'a2' });
    expect(await lease.holderOf('job')).toBe('a');
    await a.release();
    expect(await b.run(async () => 'b2')).toEqual({ ran: true, value: 'b2' });
    // A release by one that does not hold it changes nothing.
    await a.release();
    expect(await lease.holderOf('job')).toBe('b');
  });

  it('a turn longer than the TTL keeps the lease (renewed every third of it) and is not started elsewhere; the hold counts from its end', async () => {
    const { a, b, clock, lines } = twoReplicas();
    const long = deferred();
    const started = deferred();
    const turn = a.run(() => (started.resolve(), long.promise.then(() => 'done')));
    await started.promise;
    for (let i = 0; i < 9; i++) {
      await clock.advance(TTL / 3);
      expect(await b.run(async () => 'b')).toEqual({ ran: false });
    }
    long.resolve();
    expect(await turn).toEqual({ ran: true, value: 'done' });
    // Renewed at the end: b is refused until a whole TTL after it, and takes it then.
    await clock.advance(TTL - 1);
    expect(await b.run(async () => 'b')).toEqual({ ran: false });
    await clock.advance(1);
    expect(await b.run(async () => 'b')).toEqual({ ran: true, value: 'b' });
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
  });

  it('a holder that cannot renew past the TTL loses the lease: another runs, and the first says so when it sees it', async () => {
    let failing = false;
    const { a, b, clock, lines } = twoReplicas((inner) => ({
      ...inner,
      renew: (...args) => (failing ? Promise.reject(new Error('injected: Redis away')) : inner.renew(...args)),
    }));
    const long = deferred();
    const started = deferred();
    const turn = a.run(() => (started.resolve(), long.promise));
    await started.promise;
    failing = true;
    await clock.advance(TTL);
    failing = false;
    expect(await b.run(async () => 'b')).toEqual({ ran: true, value: 'b' });
    await clock.advance(TTL / 3);
    long.resolve();
    await turn;
    expect(lines.filter((l) => l.level >= 40).map((l) => `${l.holder}: ${l.msg}`)).toEqual([
      'a: renewing the lease failed (tried again): injected: Redis away',
      'a: renewing the lease failed (tried again): injected: Redis away',
      'a: renewing the lease failed (tried again): injected: Redis away',
      "a: lease lost during a turn: another replica may run this job's turn too",
      "a: lease lost by the end of a turn: another replica may run this job's turn too",
    ]);
  });

  it('a lease store that fails to take the lease throws and runs nothing', async () => {
    const { a } = twoReplicas((inner) => ({ ...inner, acquire: () => Promise.reject(new Error('injected: Redis away')) }));
    let ran = false;
    await expect(a.run(async () => void (ran = true))).rejects.toThrow('injected: Redis away');
    expect(ran).toBe(false);
  });

  it('holds twice the timer’s period, at least a minute', () => {
    expect([leaseTtlMs(600_000), leaseTtlMs(3_600_000), leaseTtlMs(10_000), leaseTtlMs(0)]).toEqual([1_200_000, 7_200_000, 60_000, 60_000]);
  });
});
