import { consumerLagTally } from './consumer-lag';
import type { BusMessage, MessageBatch } from './ports/bus';

const message = (offset: number, timestamp: number): BusMessage => ({
  topic: 't',
  partition: 1,
  offset: String(offset),
  key: null,
  value: Buffer.alloc(0),
  headers: {},
  timestamp,
});
const batch = (offsets: number[], highWatermark: number, timestamp = 1_000): MessageBatch => ({
  topic: 't',
  partition: 1,
  messages: offsets.map((o) => message(o, timestamp)),
  highWatermark: String(highWatermark),
});

describe('consumerLagTally', () => {
  it('records a group’s lag after each batch it handled: messages past the last one, seconds since its log time, 0 once caught up', async () => {
    let now = 3_500;
    const lag = consumerLagTally(() => now);
    const handle = lag.measured('g', async () => undefined);
    await handle(batch([3, 4], 10));
    expect(lag.readings()).toEqual([{ group: 'g', topic: 't', partition: 1, messages: 5, seconds: 2.5 }]);
    now = 9_000;
    await handle(batch([5, 6, 7, 8, 9], 10, 8_000));
    expect(lag.readings()).toEqual([{ group: 'g', topic: 't', partition: 1, messages: 0, seconds: 0 }]);
  });

  it('records nothing for a batch its handler failed (it is delivered again)', async () => {
    const lag = consumerLagTally(() => 0);
    const failing = lag.measured('g', async () => {
      throw new Error('retry');
    });
    await expect(failing(batch([0], 5))).rejects.toThrow('retry');
    expect(lag.readings()).toEqual([]);
  });
});
