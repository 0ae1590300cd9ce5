import { DEAD_LETTER_HEADERS, PLATFORM_VERSION } from '../dead-letter';
import { InfraError } from '../errors';
import { createLogger } from '../logger';
import type { Bus, BusMessage, OutgoingMessage, SubscribeOptions, SubscriptionHealth } from '../ports/bus';
import { topics } from '../topics';
import { ManualClock } from './clock';
import { createConsumerLifecycle } from './lifecycle';

/** A bus that records what the lifecycle asks of it (the bus's own behaviour has its conformance suite). */
function recordingBus(opts: { failSend?: Error } = {}) {
  const events: string[] = [];
  const sent: { topic: string; messages: OutgoingMessage[] }[] = [];
  const subscribed: SubscribeOptions[] = [];
  const states: SubscriptionHealth[] = [];
  let producers = 0;
  const bus = {
    async producer() {
      producers += 1;
      return {
        async send(topic: string, messages: OutgoingMessage[]) {
          if (opts.failSend) throw opts.failSend;
          sent.push({ topic, messages });
        },
        async sendBatch() {},
        async close() {
          events.push('producer closed');
        },
      };
    },
    async subscribe(o: SubscribeOptions) {
      const i = subscribed.push(o) - 1;
      states.push({ state: 'running' });
      return {
        health: () => states[i] as SubscriptionHealth,
        async stop() {
          events.push(`${o.groupId} stopped`);
        },
      };
    },
  } as unknown as Bus;
  return { bus, events, sent, subscribed, states, producers: () => producers };
}

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  return { logger: createLogger('test', 'info', { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }), lines };
}

const message: BusMessage = { topic: 'ingest.raw', partition: 2, offset: '41', key: 'k', value: Buffer.from('v'), headers: { a: '1' }, timestamp: 0 };

describe('createConsumerLifecycle', () => {
  it('opens one producer however often it is opened, and refuses to produce before (retriable: the batch comes again)', async () => {
    const b = recordingBus();
    const life = createConsumerLifecycle({ name: 'part', bus: b.bus, logger: capturingLogger().logger });
    expect(() => life.producer()).toThrow(InfraError);
    expect(() => life.producer()).toThrow(expect.objectContaining({ retriable: true, message: 'bus: part not started: no producer' }));
    expect(await life.open()).toBe(true);
    expect(await life.open()).toBe(false);
    expect(b.producers()).toBe(1);
    await life.producer().send('t', []);
    await life.stop();
    expect(() => life.producer()).toThrow(InfraError);
    expect(await life.open()).toBe(true);
  });

  it('joins groups naming the part as their dead letters’ processor, with its onDead', async () => {
    const b = recordingBus();
    const onDead = jest.fn();
    const life = createConsumerLifecycle({ name: 'part', bus: b.bus, logger: capturingLogger().logger, onDead });
    const handleBatch = async () => undefined;
    await life.consume({ groupId: 'g1', topics: ['a', 'b'], handleBatch, fromBeginning: false, concurrency: 4 });
    await life.consume({ groupId: 'g2', topics: ['c'], handleBatch });
    expect(b.subscribed).toEqual([
      { groupId: 'g1', topics: ['a', 'b'], processor: { name: 'part', version: PLATFORM_VERSION }, handleBatch, fromBeginning: false, concurrency: 4, onDead },
      { groupId: 'g2', topics: ['c'], processor: { name: 'part', version: PLATFORM_VERSION }, handleBatch, onDead },
    ]);
  });

  it('reports the worst state of its consumers: dead, then stopped, then running; stopped with none', async () => {
    const b = recordingBus();
    const life = createConsumerLifecycle({ name: 'part', bus: b.bus, logger: capturingLogger().logger });
    expect(life.health()).toEqual({ state: 'stopped' });
    const handleBatch = async () => undefined;
    await life.consume({ groupId: 'g1', topics: ['a'], handleBatch });
    await life.consume({ groupId: 'g2', topics: ['b'], handleBatch });
    expect(life.health()).toEqual({ state: 'running' });
    b.states[1] = { state: 'stopped' };
    expect(life.health()).toEqual({ state: 'stopped' });
    b.states[0] = { state: 'dead', error: 'gave up' };
    expect(life.health()).toEqual({ state: 'dead', error: 'gave up' });
    await life.stop();
    expect(life.health()).toEqual({ state: 'stopped' });
  });

  it('writes dead letters in the one envelope, failed at the clock’s instant, durably before resolving', async () => {
    const b = recordingBus();
    const clock = new ManualClock(Date.UTC(2026, 0, 2, 3, 4, 5, 6));
    const life = createConsumerLifecycle({ name: 'part', bus: b.bus, logger: capturingLogger().logger, clock });
    await life.open();
    await life.writeDeadLetters([]);
    expect(b.sent).toEqual([]);
    const letter = life.deadLetter(message, 'g1', { kind: 'invalid', message: 'no field x', retriable: false });
    const H = DEAD_LETTER_HEADERS;
    expect(letter.headers).toMatchObject({
      a: '1',
      [H.group]: 'g1',
      [H.sourceTopic]: 'ingest.raw',
      [H.sourceOffset]: '41',
      [H.errorKind]: 'invalid',
      [H.processor]: 'part',
      [H.failedAt]: '2026-01-02T03:04:05.006Z',
    });
    await life.writeDeadLetters([letter]);
    expect(b.sent).toEqual([{ topic: topics.deadLetters, messages: [letter] }]);
  });

  it('a failed dead-letter write is retriable, so nothing is committed past the messages', async () => {
    const b = recordingBus({ failSend: new Error('broker down') });
    const life = createConsumerLifecycle({ name: 'part', bus: b.bus, logger: capturingLogger().logger });
    await life.open();
    const letter = life.deadLetter(message, 'g1', { kind: 'failed', message: 'bug', retriable: false });
    await expect(life.writeDeadLetters([letter])).rejects.toThrow(
      expect.objectContaining({ retriable: true, message: 'bus: dead-letter write failed, not committing: broker down' }),
    );
  });

  it('stops in order: timers (a run in hand ends), consumers with drain, flush, producer, close', async () => {
    const b = recordingBus();
    const clock = new ManualClock(0);
    const life = createConsumerLifecycle({ name: 'part', bus: b.bus, logger: capturingLogger().logger, clock });
    await life.open();
    await life.consume({ groupId: 'g1', topics: ['a'], handleBatch: async () => undefined });
    let endRun!: () => void;
    life.every(100, 'tick', () => new Promise<void>((resolve) => (endRun = resolve)).then(() => void b.events.push('run ended')));
    await clock.advance(100);
    const stopping = life.stop({
      drain: async () => void b.events.push('drained'),
      flush: async () => void b.events.push('flushed'),
      close: async () => void b.events.push('closed'),
    });
    await clock.advance(0);
    expect(b.events).toEqual([]);
    endRun();
    await stopping;
    expect(b.events).toEqual(['run ended', 'drained', 'g1 stopped', 'flushed', 'producer closed', 'closed']);
    expect(clock.pending()).toBe(0);
  });

  it('logs as its component', async () => {
    const { logger, lines } = capturingLogger();
    const life = createConsumerLifecycle({ name: 'part', bus: recordingBus().bus, logger });
    life.logger.info('hello');
    expect(lines).toEqual([expect.objectContaining({ component: 'part', msg: 'hello' })]);
  });
});
