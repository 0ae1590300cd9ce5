import { Registry } from 'prom-client';
import { InfraError, createLogger, topics, type Bus, type BusMessage, type BusProducer, type SchemaRegistry, type Subscription } from '@evp/core';
import { ManualClock, NEVER_EXPIRES, actionLogEntryId, type NewAction } from '@evp/actions';
import { InMemoryActionStore, createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { waitFor } from '@evp/testkit';
import { startLogRelay, type LogRelay } from './log-relay';

const logger = createLogger('test', 'silent');
const T0 = Date.UTC(2030, 0, 1);
const action = (user: string, mode: 'one-off' | 'cached', act: number): NewAction => ({
  user_id: user,
  type: 'message',
  render_method: 'push_notification',
  delivery_mode: mode,
  content: { title: 't', body: 'b' },
  attr: { screen: 'cart' },
  tags: ['promo'],
  expired_at: NEVER_EXPIRES,
  inv_id: 1,
  action_id: act,
});

let bus: Bus;
let registry: SchemaRegistry;
let store: InMemoryActionStore;
let producer: BusProducer;
const cleanups: (() => Promise<void>)[] = [];
beforeEach(async () => {
  bus = createInProcessBus({ retryDelayMs: 5 });
  await bus.ensureTopics([{ name: topics.actionsLog, partitions: 3 }]);
  registry = createInProcessRegistry();
  store = new InMemoryActionStore({ clock: new ManualClock(T0) });
  producer = await bus.producer();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await producer.close();
  await bus.close();
});

function relay(opts: { producer?: BusProducer; metrics?: Registry; idleMs?: number } = {}): LogRelay {
  const r = startLogRelay({
    store,
    producer: opts.producer ?? producer,
    registry,
    logger,
    idleMs: opts.idleMs ?? 5,
    backoffMs: 5,
    maxBackoffMs: 20,
    metrics: opts.metrics,
  });
  cleanups.push(() => r.stop());
  return r;
}

/** The first n messages of actions.log, decoded, with their key and app header. */
async function readTopic(n: number): Promise<{ key: string | null; app: string | undefined; value: Record<string, unknown> }[]> {
  const got: BusMessage[] = [];
  const sub: Subscription = await bus.subscribe({
    groupId: `read-${Math.random()}`,
    topics: [topics.actionsLog],
    handleBatch: async (b) => {
      got.push(...b.messages);
    },
  });
  cleanups.push(() => sub.stop());
  await waitFor(() => got.length >= n, { timeoutMs: 5000, what: `${n} messages on actions.log` });
  return Promise.all(got.map(async (m) => ({ key: m.key, app: m.headers.app_id, value: (await registry.decode(m.value)) as Record<string, unknown> })));
}

const metricValues = async (metrics: Registry, name: string) =>
  Object.fromEntries((await metrics.getSingleMetric(name)?.get())?.values.map((v) => [Object.values(v.labels).join(',') || '-', v.value]) ?? []);

describe('startLogRelay', () => {
  it('moves every outbox entry to actions.log (Avro, key app:user, app_id header), then acknowledges it', async () => {
    await store.create('app-1', [action('u1', 'cached', 1), action('u2', 'one-off', 2)], { source: 'api' });
    await store.pull('app-1', { user_id: 'u2', type: 'message', render_method: 'push_notification', delivery_mode: 'one-off' });
    const metrics = new Registry();
    relay({ metrics });
    await waitFor(async () => (await store.logLength()) === 0, { timeoutMs: 5000, what: 'the outbox acknowledged' });
    const messages = await readTopic(3);
    expect(messages.map((m) => `${m.key} ${m.app} ${String(m.value.kind)}`).sort()).toEqual([
      'app-1:u1 app-1 created',
      'app-1:u2 app-1 created',
      'app-1:u2 app-1 delivered',
    ]);
    expect(messages.find((m) => m.key === 'app-1:u1')?.value).toEqual({
      entry_id: actionLogEntryId('app-1', '1:1:u1', T0, 'created'),
      kind: 'created',
      app_id: 'app-1',
      user_id: 'u1',
      inv_id: 1,
      action_id: 1,
      at: T0,
      created_at: T0,
      type: 'message',
      render_method: 'push_notification',
      delivery_mode: 'cached',
      expired_at: null,
      tags: ['promo'],
      attr: { screen: 'cart' },
      source: 'api',
      reason: '',
      available_at: null,
    });
    expect(await metricValues(metrics, 'action_store_log_entries_relayed_total')).toEqual({ created: 2, delivered: 1 });
    expect(await metricValues(metrics, 'action_store_log_outbox_records')).toEqual({ '-': 0 });
  });

  it('acknowledges only after the produce resolved, and retries the same batch after a failure', async () => {
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const gated: BusProducer = {
      ...producer,
      send: async (topic, messages) => {
        calls++;
        if (calls === 1) throw new InfraError('kafka', 'broker away', { retriable: true });
        await gate;
        return producer.send(topic, messages);
      },
    };
    await store.create('app-1', [action('u1', 'one-off', 1)]);
    const metrics = new Registry();
    relay({ producer: gated, metrics });
    await waitFor(() => calls === 2, { timeoutMs: 5000, what: 'the second produce attempt' });
    // Read and held by the relay, not acknowledged: still in the outbox.
    expect(await store.logLength()).toBe(1);
    release();
    await waitFor(async () => (await store.logLength()) === 0, { timeoutMs: 5000, what: 'the acknowledgement' });
    expect((await readTopic(1)).map((m) => String(m.value.kind))).toEqual(['created']);
    expect(await metricValues(metrics, 'action_store_log_relay_failures_total')).toEqual({ produce: 1 });
  });

  it('retries the acknowledgement without producing again', async () => {
    let acks = 0;
    const ackLog = store.ackLog.bind(store);
    store.ackLog = async (a) => {
      if (acks++ === 0) throw new InfraError('redis', 'down', { retriable: true });
      return ackLog(a);
    };
    let sends = 0;
    const counting: BusProducer = { ...producer, send: async (t, m) => (sends++, producer.send(t, m)) };
    await store.create('app-1', [action('u1', 'one-off', 1)]);
    relay({ producer: counting });
    await waitFor(async () => (await store.logLength()) === 0, { timeoutMs: 5000, what: 'the acknowledgement' });
    expect([acks, sends]).toEqual([2, 1]);
  });

  it('stops at once when idle, and after finishing the batch in hand otherwise', async () => {
    const idle = relay({ idleMs: 60_000 });
    const started = Date.now();
    await idle.stop();
    expect(Date.now() - started).toBeLessThan(1000);

    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let sending = false;
    const gated: BusProducer = { ...producer, send: async (t, m) => ((sending = true), await gate, producer.send(t, m)) };
    await store.create('app-1', [action('u1', 'one-off', 1)]);
    const busy = relay({ producer: gated });
    await waitFor(() => sending, { timeoutMs: 5000, what: 'the produce' });
    const stopped = busy.stop();
    release();
    await stopped;
    expect(await store.logLength()).toBe(0);
  });
});
