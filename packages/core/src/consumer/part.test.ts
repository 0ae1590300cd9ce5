import { createLogger } from '../logger';
import { fixedOption } from '../options';
import type { Bus } from '../ports/bus';
import { ManualClock } from './clock';
import { consumerPart } from './part';

const OPTIONS = { groupId: fixedOption('part', 'Group.'), batch: fixedOption(10, 'Batch.') };
const bus = {} as Bus;
const logger = createLogger('test', 'silent');

describe('consumerPart', () => {
  it('gives the part its options over the defaults and names its lifecycle', () => {
    const { config, life } = consumerPart('my-part', OPTIONS, { bus, logger, config: { batch: 3 } });
    expect(config).toEqual({ groupId: 'part', batch: 3 });
    expect([life.name, life.processor.name]).toEqual(['my-part', 'my-part']);
  });

  it('reads the time from `now`, else from the given clock, whose timers the lifecycle uses', async () => {
    const clock = new ManualClock(5_000);
    const fromClock = consumerPart('p', OPTIONS, { bus, logger, clock });
    expect(fromClock.now()).toBe(5_000);
    expect(fromClock.life.clock).toBe(clock);
    const fromNow = consumerPart('p', OPTIONS, { bus, logger, now: () => 42 });
    expect([fromNow.now(), fromNow.life.clock.now()]).toEqual([42, 42]);
    const runs: number[] = [];
    fromClock.life.every(1_000, 'tick', async () => void runs.push(clock.now()));
    await clock.advance(2_000);
    expect(runs).toEqual([6_000, 7_000]);
    await fromClock.life.stop();
  });
});
