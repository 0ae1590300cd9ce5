import { createLogger } from '../logger';
import { ManualClock } from './clock';
import { every } from './every';

/** A logger whose lines the test reads. */
function capturingLogger() {
  const lines: { level: number; msg: string }[] = [];
  const logger = createLogger('test', 'info', { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
  return { logger, lines };
}

/** A promise the test settles by hand. */
function deferred() {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('every', () => {
  it('runs on each multiple of the period of the injected clock, the first being the next one after the start', async () => {
    const clock = new ManualClock(1_234);
    const { logger } = capturingLogger();
    const at: number[] = [];
    every({ everyMs: 1_000, what: 'tick', clock, logger, run: async () => void at.push(clock.now()) });
    await clock.advance(765);
    expect(at).toEqual([]);
    await clock.advance(1);
    expect(at).toEqual([2_000]);
    await clock.advance(3_000);
    expect(at).toEqual([2_000, 3_000, 4_000, 5_000]);
    expect(clock.pending()).toBe(1);
  });

  it('started on a multiple, first runs one period later (never at once)', async () => {
    const clock = new ManualClock(60_000);
    const { logger } = capturingLogger();
    const at: number[] = [];
    every({ everyMs: 60_000, what: 'tick', clock, logger, run: async () => void at.push(clock.now()) });
    await clock.advance(59_999);
    expect(at).toEqual([]);
    await clock.advance(1);
    expect(at).toEqual([120_000]);
  });

  it('sets no timer for a period of 0 or less', async () => {
    const clock = new ManualClock(0);
    const { logger } = capturingLogger();
    const run = jest.fn(async () => undefined);
    const timers = [every({ everyMs: 0, what: 'off', clock, logger, run }), every({ everyMs: -5, what: 'off', clock, logger, run })];
    expect(clock.pending()).toBe(0);
    await clock.advance(10_000);
    expect(run).not.toHaveBeenCalled();
    await Promise.all(timers.map((t) => t.stop()));
  });

  it('logs a failed run, thrown or rejected, and keeps the timer going', async () => {
    const clock = new ManualClock(0);
    const { logger, lines } = capturingLogger();
    let n = 0;
    every({
      everyMs: 100,
      what: 'refresh',
      clock,
      logger,
      run: () => {
        n += 1;
        if (n === 1) throw new Error('thrown');
        return n === 2 ? Promise.reject(new Error('rejected')) : Promise.resolve();
      },
    });
    await clock.advance(300);
    expect(n).toBe(3);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [50, 'refresh failed: thrown'],
      [50, 'refresh failed: rejected'],
    ]);
    expect(clock.pending()).toBe(1);
  });

  it('never overlaps: a run longer than the period skips the multiples it spans, the next is the first after its end', async () => {
    const clock = new ManualClock(0);
    const { logger } = capturingLogger();
    const runs: { at: number; done: ReturnType<typeof deferred> }[] = [];
    every({
      everyMs: 1_000,
      what: 'slow',
      clock,
      logger,
      run: () => {
        const done = deferred();
        runs.push({ at: clock.now(), done });
        return done.promise;
      },
    });
    await clock.advance(3_500);
    expect(runs.map((r) => r.at)).toEqual([1_000]);
    expect(clock.pending()).toBe(0);
    runs[0]?.done.resolve();
    await clock.advance(0);
    expect(clock.pending()).toBe(1);
    await clock.advance(499);
    expect(runs.map((r) => r.at)).toEqual([1_000]);
    await clock.advance(1);
    expect(runs.map((r) => r.at)).toEqual([1_000, 4_000]);
  });

  it('stop clears the timer: no run after it', async () => {
    const clock = new ManualClock(0);
    const { logger } = capturingLogger();
    const run = jest.fn(async () => undefined);
    const timer = every({ everyMs: 100, what: 'tick', clock, logger, run });
    await clock.advance(250);
    expect(run).toHaveBeenCalledTimes(2);
    await timer.stop();
    expect(clock.pending()).toBe(0);
    await clock.advance(1_000);
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('stop during a run resolves once the run ends, and sets no further timer', async () => {
    const clock = new ManualClock(0);
    const { logger } = capturingLogger();
    const done = deferred();
    const run = jest.fn(() => done.promise);
    const timer = every({ everyMs: 100, what: 'tick', clock, logger, run });
    await clock.advance(100);
    let stopped = false;
    const stopping = timer.stop().then(() => (stopped = true));
    await clock.advance(0);
    expect(stopped).toBe(false);
    done.resolve();
    await stopping;
    expect(clock.pending()).toBe(0);
    await clock.advance(1_000);
    expect(run).toHaveBeenCalledTimes(1);
  });
});

describe('ManualClock', () => {
  it('fires timers in order of their instants (ties in the order set), each at its own instant, and not cleared ones', async () => {
    const clock = new ManualClock(10);
    const fired: [string, number][] = [];
    clock.setTimeout(() => fired.push(['b', clock.now()]), 20);
    clock.setTimeout(() => fired.push(['a', clock.now()]), 5);
    clock.setTimeout(() => fired.push(['c', clock.now()]), 20);
    const cleared = clock.setTimeout(() => fired.push(['x', clock.now()]), 1);
    clock.clearTimeout(cleared);
    clock.setTimeout(() => fired.push(['later', clock.now()]), 100);
    await clock.advance(20);
    expect(fired).toEqual([
      ['a', 15],
      ['b', 30],
      ['c', 30],
    ]);
    expect(clock.now()).toBe(30);
    expect(clock.pending()).toBe(1);
  });

  it('fires a timer set by a fired callback within the same advance when it falls due in it', async () => {
    const clock = new ManualClock(0);
    const fired: number[] = [];
    const tick = () => {
      fired.push(clock.now());
      clock.setTimeout(tick, 10);
    };
    clock.setTimeout(tick, 10);
    await clock.advance(35);
    expect(fired).toEqual([10, 20, 30]);
  });
});
