import { InfraError } from '@evp/core';
import { InsertBatcher, dedupToken, type BatchPart, type BatcherOptions, type RefusedRow } from './batcher';

interface Insert {
  table: string;
  rows: object[];
  token: string;
}

function setup(overrides: Partial<BatcherOptions<string>> = {}, failures: Error[] = []) {
  const inserts: Insert[] = [];
  const sleeps: number[] = [];
  const deadLetters: RefusedRow<string>[][] = [];
  const batcher = new InsertBatcher<string>({
    maxRows: 100,
    maxWaitMs: 10_000,
    concurrency: 1,
    isRetriable: (err) => err instanceof InfraError && err.retriable,
    isRowFault: (err) => err instanceof InfraError && !err.retriable,
    deadLetter: async (refused) => {
      deadLetters.push(refused);
    },
    retry: { initialDelayMs: 100, maxDelayMs: 250, budgetMs: 60_000 },
    insert: async (table, rows, token) => {
      const f = failures.shift();
      if (f) throw f;
      inserts.push({ table, rows: [...rows], token });
    },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...overrides,
  });
  return { batcher, inserts, sleeps, deadLetters };
}

const part = (tables: Record<string, string[]>): BatchPart<string> => ({
  tables: new Map(Object.entries(tables).map(([t, ids]) => [t, { rows: ids.map((id) => ({ id })), keys: ids, sources: ids.map((id) => `msg-${id}`) }])),
});

async function waitUntil(cond: () => boolean) {
  const deadline = Date.now() + 5_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met within 5 s');
    await new Promise((r) => setTimeout(r, 2));
  }
}

const down = () => new InfraError('clickhouse', 'insert failed: server unreachable', { retriable: true });

describe('InsertBatcher', () => {
  it('with a sequential bus inserts each handler call at once, one insert per table', async () => {
    const { batcher, inserts } = setup();
    await batcher.add(part({ events: ['a', 'b'], rejected: ['r'] }));
    expect(inserts.map((i) => [i.table, i.rows])).toEqual([
      ['events', [{ id: 'a' }, { id: 'b' }]],
      ['rejected', [{ id: 'r' }]],
    ]);
    expect(inserts[0]?.token).toMatch(/^events:[0-9a-f]{64}$/);
  });

  it('derives the dedup token from the row ids alone: the same rows give the same token wherever they sit in the log, other rows another', async () => {
    const { batcher, inserts } = setup();
    await batcher.add(part({ events: ['a', 'b'] }));
    await batcher.add(part({ events: ['a', 'b'] }));
    await batcher.add(part({ events: ['a', 'c'] }));
    await batcher.add(part({ rejected: ['a', 'b'] }));
    const [t1, t2, t3, t4] = inserts.map((i) => i.token);
    expect(t1).toBe(t2);
    expect(new Set([t1, t3, t4]).size).toBe(3);
    expect(t1).toBe(dedupToken('events', ['a', 'b']));
  });

  it('bisects an insert refused for a reason no retry cures: every other row is inserted, the refused rows are dead-lettered, then the handler resolves', async () => {
    const refuse = (rows: object[]) => rows.some((r) => ['c', 'f'].includes((r as { id: string }).id));
    const { batcher, inserts, deadLetters } = setup({
      insert: async (table, rows, token) => {
        if (refuse(rows)) throw new InfraError('clickhouse', 'insert failed (code 117): bad row', { retriable: false });
        inserts.push({ table, rows: [...rows], token });
      },
    });
    await batcher.add(part({ events: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] }));
    expect(inserts.flatMap((i) => i.rows.map((r) => (r as { id: string }).id)).sort()).toEqual(['a', 'b', 'd', 'e', 'g']);
    expect(deadLetters.map((d) => d.map((r) => [r.table, r.source, (r.err as Error).message]))).toEqual([
      [
        ['events', 'msg-c', 'clickhouse: insert failed (code 117): bad row'],
        ['events', 'msg-f', 'clickhouse: insert failed (code 117): bad row'],
      ],
    ]);
    // Each part's token is its own rows' ids: a redelivery bisects the same way and dedupes.
    for (const i of inserts)
      expect(i.token).toBe(
        dedupToken(
          'events',
          i.rows.map((r) => (r as { id: string }).id),
        ),
      );
  });

  it('rejects the handler (nothing committed) when the dead-letter write fails', async () => {
    const { batcher, inserts } = setup({
      insert: async (table, rows, token) => {
        if (rows.some((r) => (r as { id: string }).id === 'b')) throw new InfraError('clickhouse', 'bad row', { retriable: false });
        inserts.push({ table, rows: [...rows], token });
      },
      deadLetter: async () => {
        throw new InfraError('bus', 'broker unreachable', { retriable: true });
      },
    });
    await expect(batcher.add(part({ events: ['a', 'b'] }))).rejects.toThrow('bus: broker unreachable');
    expect(inserts.map((i) => i.rows)).toEqual([[{ id: 'a' }]]);
  });

  it("does not bisect a failure that is not the rows' fault: the handler is rejected with it", async () => {
    const attempts: number[] = [];
    const { batcher, deadLetters } = setup({
      isRowFault: () => false,
      insert: async (_table, rows) => {
        attempts.push(rows.length);
        throw new InfraError('clickhouse', 'unknown table', { retriable: false });
      },
    });
    await expect(batcher.add(part({ events: ['a', 'b', 'c'] }))).rejects.toThrow('clickhouse: unknown table');
    expect([attempts, deadLetters]).toEqual([[3], []]);
  });

  it('gathers concurrent handler calls into one insert once every possible caller waits', async () => {
    const { batcher, inserts } = setup({ concurrency: 3 });
    const settled: string[] = [];
    const p1 = batcher.add(part({ events: ['a'] })).then(() => settled.push('p1'));
    const p2 = batcher.add(part({ events: ['b'] })).then(() => settled.push('p2'));
    await new Promise((r) => setTimeout(r, 20));
    expect(inserts).toEqual([]);
    expect(settled).toEqual([]);
    const p3 = batcher.add(part({ events: ['c'] })).then(() => settled.push('p3'));
    await Promise.all([p1, p2, p3]);
    expect(inserts.map((i) => i.rows)).toEqual([[{ id: 'a' }, { id: 'b' }, { id: 'c' }]]);
    expect(settled).toEqual(['p1', 'p2', 'p3']);
  });

  it('flushes by time when fewer callers come', async () => {
    const { batcher, inserts } = setup({ concurrency: 10, maxWaitMs: 30 });
    const started = Date.now();
    await Promise.all([batcher.add(part({ events: ['a'] })), batcher.add(part({ events: ['b'] }))]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(inserts.map((i) => i.rows.length)).toEqual([2]);
  });

  describe('idle flush (idleFlushIntervalMs)', () => {
    it('flushes the calls of one tick at once when no insert runs, without waiting for time or every caller', async () => {
      const { batcher, inserts } = setup({ concurrency: 10, maxWaitMs: 60_000, idleFlushIntervalMs: 0 });
      const started = Date.now();
      await Promise.all([batcher.add(part({ events: ['a'] })), batcher.add(part({ events: ['b'] }))]);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(inserts.map((i) => i.rows)).toEqual([[{ id: 'a' }, { id: 'b' }]]);
    });

    it('gathers the calls that come while an insert runs and sends them together right after it', async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const inserted: string[][] = [];
      const { batcher } = setup({
        concurrency: 10,
        maxWaitMs: 60_000,
        idleFlushIntervalMs: 0,
        insert: async (_table, rows) => {
          inserted.push(rows.map((r) => (r as { id: string }).id));
          if (inserted.length === 1) await gate;
        },
      });
      const first = batcher.add(part({ events: ['a'] }));
      await waitUntil(() => inserted.length === 1);
      const later = [batcher.add(part({ events: ['b'] })), batcher.add(part({ events: ['c', 'd'] }))];
      await new Promise((r) => setTimeout(r, 20));
      expect(inserted).toEqual([['a']]);
      release();
      await Promise.all([first, ...later]);
      expect(inserted).toEqual([['a'], ['b', 'c', 'd']]);
    });

    it('flushNow seals at once, interval or not (a slice of a large batch)', async () => {
      const { batcher, inserts } = setup({ concurrency: 10, maxWaitMs: 60_000, idleFlushIntervalMs: 60_000 });
      await batcher.add(part({ events: ['a'] }), { flushNow: true });
      await batcher.add(part({ events: ['b'] }), { flushNow: true });
      expect(inserts.map((i) => i.rows)).toEqual([[{ id: 'a' }], [{ id: 'b' }]]);
    });

    it('looks again when its timer fires before the clock says the interval is over', async () => {
      // The injected clock stands still: every idle timer fires "early". The rows leave once the
      // clock moves on, not after maxWaitMs (a minute).
      let clock = 0;
      const { batcher, inserts } = setup({ concurrency: 10, maxWaitMs: 60_000, idleFlushIntervalMs: 50, now: () => clock });
      await batcher.add(part({ events: ['a'] }));
      const second = batcher.add(part({ events: ['b'] }));
      await new Promise((r) => setTimeout(r, 120));
      expect(inserts.map((i) => i.rows)).toEqual([[{ id: 'a' }]]);
      clock = 50;
      const moved = Date.now();
      await second;
      expect(Date.now() - moved).toBeLessThan(1_000);
      expect(inserts.map((i) => i.rows)).toEqual([[{ id: 'a' }], [{ id: 'b' }]]);
    });

    it('starts inserts at most once per interval', async () => {
      // The first insert does not wait (maxWaitMs is a minute); the second waits out the interval.
      const { batcher, inserts } = setup({ concurrency: 10, maxWaitMs: 60_000, idleFlushIntervalMs: 300 });
      await batcher.add(part({ events: ['a'] }));
      const first = Date.now();
      await batcher.add(part({ events: ['b'] }));
      expect(Date.now() - first).toBeGreaterThanOrEqual(250);
      expect(inserts.map((i) => i.rows)).toEqual([[{ id: 'a' }], [{ id: 'b' }]]);
    });
  });

  it('flushes by size', async () => {
    const { batcher, inserts } = setup({ concurrency: 10, maxRows: 3 });
    await Promise.all([batcher.add(part({ events: ['a', 'b'] })), batcher.add(part({ events: ['c'] }))]);
    expect(inserts.map((i) => i.rows.length)).toEqual([3]);
  });

  it('retries a retriable failure with doubling back-off, then resolves', async () => {
    const retries: [number, number][] = [];
    const { batcher, inserts, sleeps } = setup({ onRetry: (r) => retries.push([r.attempt, r.delayMs]) }, [down(), down(), down()]);
    await batcher.add(part({ events: ['a'] }));
    expect(inserts.map((i) => i.rows)).toEqual([[{ id: 'a' }]]);
    expect(sleeps).toEqual([100, 200, 250]);
    expect(retries).toEqual([
      [1, 100],
      [2, 200],
      [3, 250],
    ]);
  });

  it("rejects every caller of a flush at once on a non-retriable failure that is not the rows' fault", async () => {
    const bad = new InfraError('clickhouse', 'insert failed (code 60): unknown table', { retriable: false });
    const { batcher, inserts, sleeps } = setup({ concurrency: 2, maxWaitMs: 20, isRowFault: () => false }, [bad]);
    const results = await Promise.allSettled([batcher.add(part({ events: ['a'] })), batcher.add(part({ events: ['b'] }))]);
    expect(results).toEqual([
      { status: 'rejected', reason: bad },
      { status: 'rejected', reason: bad },
    ]);
    expect([inserts, sleeps]).toEqual([[], []]);
    // The next flush is independent of the failed one.
    await batcher.add(part({ events: ['a'] }));
    expect(inserts.map((i) => i.rows)).toEqual([[{ id: 'a' }]]);
  });

  it('hands the batch back to the bus once the retry budget is spent', async () => {
    let clock = 0;
    const failures = Array.from({ length: 10 }, down);
    const { batcher, sleeps } = setup(
      {
        now: () => clock,
        sleep: async (ms) => {
          sleeps.push(ms);
          clock += ms;
        },
        retry: { initialDelayMs: 100, maxDelayMs: 400, budgetMs: 1_000 },
      },
      failures,
    );
    await expect(batcher.add(part({ events: ['a'] }))).rejects.toThrow('server unreachable');
    expect(sleeps).toEqual([100, 200, 400]);
  });

  it('drain flushes what waits and every later add at once', async () => {
    const { batcher, inserts } = setup({ concurrency: 10 });
    const pending = batcher.add(part({ events: ['a'] }));
    await batcher.drain();
    await pending;
    await batcher.add(part({ events: ['b'] }));
    expect(inserts.map((i) => i.rows)).toEqual([[{ id: 'a' }], [{ id: 'b' }]]);
  });
});
