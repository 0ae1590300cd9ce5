import { InfraError, type BusProducer, type OutgoingMessage, type OutgoingRecord } from '@evp/core';
import { coalescingProducer } from './coalescing-producer';

const msg = (v: string): OutgoingMessage => ({ key: v, value: Buffer.from(v) });

/** A fake producer whose combined sends are held until released, recording each call. */
function fake(fail?: (entries: { topic: string; messages: OutgoingRecord[] }[]) => Error | undefined) {
  const calls: { topic: string; messages: string[] }[][] = [];
  const releases: (() => void)[] = [];
  const inner: BusProducer = {
    send: async () => undefined,
    sendBatch: (entries) => {
      calls.push(entries.map((e) => ({ topic: e.topic, messages: e.messages.map((m) => String(m.value)) })));
      const err = fail?.(entries);
      return err ? Promise.reject(err) : new Promise<void>((r) => releases.push(r));
    },
    close: async () => undefined,
  };
  return { inner, calls, releaseAll: () => releases.splice(0).forEach((r) => r()) };
}
const tick = async () => {
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
};

describe('coalescingProducer', () => {
  it('sends concurrent sends as one produce and resolves each only after the ack', async () => {
    const f = fake();
    const p = coalescingProducer(f.inner, { maxInFlight: 1 });
    let done = 0;
    const sends = [p.send('t', [msg('a')]), p.send('t', [msg('b'), msg('c')]), p.send('u', [msg('d')])].map((s) => s.then(() => done++));
    await tick();
    expect(f.calls).toEqual([
      [
        { topic: 't', messages: ['a', 'b', 'c'] },
        { topic: 'u', messages: ['d'] },
      ],
    ]);
    expect(done).toBe(0);
    f.releaseAll();
    await Promise.all(sends);
    expect(done).toBe(3);
  });

  it('gathers sends that arrive while the in-flight limit is reached into the next produce', async () => {
    const f = fake();
    const p = coalescingProducer(f.inner, { maxInFlight: 1 });
    const first = p.send('t', [msg('a')]);
    await tick();
    const later = [p.send('t', [msg('b')]), p.send('t', [msg('c')])];
    await tick();
    expect(f.calls).toHaveLength(1);
    f.releaseAll();
    await first;
    await tick();
    expect(f.calls[1]).toEqual([{ topic: 't', messages: ['b', 'c'] }]);
    f.releaseAll();
    await Promise.all(later);
  });

  it('caps a combined produce at maxBatchBytes', async () => {
    const f = fake();
    const p = coalescingProducer(f.inner, { maxInFlight: 5, maxBatchBytes: 4 });
    const all = ['aa', 'bb', 'cc'].map((v) => p.send('t', [{ value: Buffer.from(v) }]));
    await tick();
    expect(f.calls.map((c) => c[0]!.messages)).toEqual([['aa', 'bb'], ['cc']]);
    f.releaseAll();
    await Promise.all(all);
  });

  it('fails every caller of a failed produce with the (retriable) error', async () => {
    const f = fake(() => new InfraError('kafka', 'down', { retriable: true }));
    const p = coalescingProducer(f.inner);
    const r = await Promise.allSettled([p.send('t', [msg('a')]), p.send('t', [msg('b')])]);
    expect(r.map((x) => x.status)).toEqual(['rejected', 'rejected']);
  });

  it('after a permanent error retries each caller alone, so only the bad one fails', async () => {
    const f = fake((entries) =>
      entries.some((e) => e.messages.some((m) => String(m.value) === 'huge')) ? new InfraError('kafka', 'MESSAGE_TOO_LARGE', { retriable: false }) : undefined,
    );
    const p = coalescingProducer(f.inner);
    const settled = Promise.allSettled([p.send('t', [msg('ok')]), p.send('t', [msg('huge')])]);
    await tick();
    f.releaseAll();
    expect((await settled).map((x) => x.status)).toEqual(['fulfilled', 'rejected']);
  });

  it('fails sends that waited in the queue past queueTimeoutMs without producing them', async () => {
    let t = 0;
    const f = fake();
    const p = coalescingProducer(f.inner, { maxInFlight: 1, queueTimeoutMs: 100, now: () => t });
    const first = p.send('t', [msg('a')]);
    await tick();
    const stale = p.send('t', [msg('b')]);
    t = 500;
    f.releaseAll();
    await first;
    await expect(stale).rejects.toMatchObject({ retriable: true });
    expect(f.calls).toHaveLength(1);
  });

  it('close flushes what is queued and in flight, then refuses new sends', async () => {
    const f = fake();
    const p = coalescingProducer(f.inner, { maxInFlight: 1 });
    const a = p.send('t', [msg('a')]);
    await tick();
    const b = p.send('t', [msg('b')]);
    const closing = p.close();
    await expect(p.send('t', [msg('c')])).rejects.toMatchObject({ retriable: true });
    f.releaseAll();
    await a;
    await new Promise((r) => setTimeout(r, 20));
    f.releaseAll();
    await Promise.all([b, closing]);
    expect(f.calls.flat().flatMap((c) => c.messages)).toEqual(['a', 'b']);
  });
});
