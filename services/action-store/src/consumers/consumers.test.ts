import { Registry } from 'prom-client';
import { InfraError, createLogger, readDeadLetter, topics, type Bus, type DeadLetter, type Subscription } from '@evp/core';
import { ManualClock, NEVER_EXPIRES, actionRequestMessage, type FeedbackEventLike } from '@evp/actions';
import { InMemoryActionStore, createInProcessBus } from '@evp/embedded';
import { drainLog, waitFor } from '@evp/testkit';
import { startActionRequestsConsumer } from './action-requests';
import { normalizeUpload } from '@evp/schemas';
import { startFeedbackConsumer } from './feedback';

const logger = createLogger('test', 'silent');
const requested = (user: string, inv: number, act: number) => ({
  user_id: user,
  type: 'message' as const,
  render_method: 'push_notification' as const,
  delivery_mode: 'one-off' as const,
  content: { title: 't', body: 'b' },
  attr: {},
  tags: [],
  expired_at: NEVER_EXPIRES,
  inv_id: inv,
  action_id: act,
});
const pullAll = { user_id: '*', type: 'message', render_method: 'push_notification', delivery_mode: 'one-off' } as const;

let bus: Bus;
let subs: Subscription[];
beforeEach(async () => {
  bus = createInProcessBus({ retryDelayMs: 5 });
  await bus.ensureTopics([
    { name: topics.actionsRequested, partitions: 3 },
    { name: topics.events('core'), partitions: 3 },
    { name: topics.actionsFeedback, partitions: 3 },
    { name: topics.deadLetters, partitions: 3 },
  ]);
  subs = [];
});
afterEach(async () => {
  await Promise.all(subs.map((s) => s.stop()));
  await bus.close();
});

/** Every dead letter on the bus, read back through the envelope's one reader. */
async function deadLetters(b: Bus): Promise<DeadLetter[]> {
  await b.ensureTopics([{ name: topics.deadLetters, partitions: 3 }]);
  const out: DeadLetter[] = [];
  await b.scan(topics.deadLetters, 0, (m) => {
    const r = readDeadLetter(m);
    if (!r.ok) throw new Error(r.problem);
    out.push(r.letter);
  });
  // By key, then offset: one key's messages share a partition.
  return out.sort((a, b) => (a.source.key ?? '').localeCompare(b.source.key ?? '') || Number(a.source.offset) - Number(b.source.offset));
}

/** What a test compares of a dead letter: all of it but the time (checked apart) and the id (derived). */
const facts = (l: DeadLetter) => ({
  source: l.source,
  group: l.group,
  error: l.error,
  processor: l.processor,
  value: l.value.toString(),
  headers: l.headers,
  replay: l.replay,
});

const counter = async (metrics: Registry, name: string, label = 'outcome') =>
  Object.fromEntries((await metrics.getSingleMetric(name)?.get())?.values.map((v) => [String(v.labels[label]), v.value]) ?? []);

describe('actions.requested consumer', () => {
  it('creates requested actions, dead-letters malformed messages, and is idempotent under redelivery', async () => {
    const store = new InMemoryActionStore({ clock: new ManualClock(Date.UTC(2030, 0, 1)) });
    const metrics = new Registry();
    subs.push(await startActionRequestsConsumer({ bus, store, logger, metrics }));
    const producer = await bus.producer();
    const good = actionRequestMessage('app-1', [requested('u1', 1, 1), requested('u2', 1, 1)]);
    await producer.send(topics.actionsRequested, [
      good,
      good, // a redelivered copy
      { key: 'app-1', value: Buffer.from('not json') },
      { key: 'app-1', value: Buffer.from(JSON.stringify({ app_id: 'app-1', actions: [{ ...requested('u3', 1, 2), action_id: undefined }] })) },
      { ...actionRequestMessage('app-2', [requested('u4', 1, 3)]), headers: { app_id: 'app-1' } },
      actionRequestMessage('app-2', [requested('u5', 1, 4)], { source: 'campaign:42' }),
    ]);
    await waitFor(async () => (await counter(metrics, 'action_store_requested_messages_total')).stored === 3, { timeoutMs: 5000, what: '3 stored messages' });
    await waitFor(async () => (await deadLetters(bus)).length === 3 || undefined, { timeoutMs: 5000, what: '3 dead letters' });
    // The three it cannot read are dead-lettered (no longer `rejected` and skipped): one envelope each.
    expect(await counter(metrics, 'action_store_requested_messages_total')).toEqual({ stored: 3 });
    const letters = await deadLetters(bus);
    const group = 'action-store.requests';
    const processor = { name: 'action-store', version: '0.1.0' };
    const error = (kind: string, message: string) => ({ kind, message, retriable: false });
    const partition = letters[0]!.source.partition;
    expect(letters.map(facts)).toEqual([
      {
        source: { topic: topics.actionsRequested, partition, offset: '2', key: 'app-1' },
        group,
        error: error('unreadable', expect.stringMatching(/^not JSON: Unexpected token/)),
        processor,
        value: 'not json',
        headers: {},
        replay: null,
      },
      {
        source: { topic: topics.actionsRequested, partition, offset: '3', key: 'app-1' },
        group,
        error: error('invalid', '$.actions[0].action_id: Required'),
        processor,
        value: JSON.stringify({ app_id: 'app-1', actions: [{ ...requested('u3', 1, 2), action_id: undefined }] }),
        headers: {},
        replay: null,
      },
      {
        source: { topic: topics.actionsRequested, partition: letters[2]!.source.partition, offset: expect.stringMatching(/^\d+$/), key: 'app-2' },
        group,
        error: error('invalid', 'app_id header app-1 and body app-2 disagree'),
        processor,
        value: expect.any(String),
        headers: { app_id: 'app-1' },
        replay: null,
      },
    ]);
    expect(letters.every((l) => Math.abs(l.failedAt - Date.now()) < 60_000)).toBe(true);
    // Counted by source topic and group (dead_letters_total), and committed past: the partition moved on.
    expect(bus.deadLetterCounts()).toEqual([{ sourceTopic: topics.actionsRequested, group, count: 3 }]);
    await producer.send(topics.actionsRequested, [actionRequestMessage('app-1', [requested('u6', 1, 1)])]);
    await waitFor(async () => (await counter(metrics, 'action_store_requested_messages_total')).stored === 4, {
      timeoutMs: 5000,
      what: 'a message after them',
    });
    expect((await deadLetters(bus)).length).toBe(3);
    expect((await store.pull('app-1', pullAll)).data.map((r) => r.user_id)).toEqual(['u1', 'u2', 'u6']);
    expect((await store.pull('app-2', pullAll)).data.map((r) => r.user_id)).toEqual(['u5']);
    expect((await store.stats('app-1', 1))?.totals.created).toBe(3);
    // The action log names where they came from: the message's source, else actions.requested.
    // (Sorted: the two apps' messages sit on different partitions, handled in no set order.)
    expect(
      (await drainLog(store))
        .filter((e) => e.kind === 'created')
        .map((e) => `${e.app_id}/${e.user_id} ${e.source}`)
        .sort(),
    ).toEqual(['app-1/u1 actions.requested', 'app-1/u2 actions.requested', 'app-1/u6 actions.requested', 'app-2/u5 campaign:42']);
    await producer.close();
  });

  it('passes per-action caps and available_at to the store: capped actions are counted and logged, not stored', async () => {
    const clock = new ManualClock(Date.UTC(2030, 0, 1));
    const store = new InMemoryActionStore({ clock });
    const metrics = new Registry();
    subs.push(await startActionRequestsConsumer({ bus, store, logger, metrics }));
    const producer = await bus.producer();
    const caps = { campaign: { key: 'campaign-42', max: 1, within_ms: 86_400_000 } };
    const later = { ...requested('u1', 7, 1), caps, available_at: '2030-01-01T09:00:00+05:45' };
    await producer.send(topics.actionsRequested, [
      actionRequestMessage('app-1', [later, { ...requested('u1', 8, 1), caps }], { source: 'campaign:42' }),
      actionRequestMessage('app-1', [later]), // redelivered: a duplicate, the cap untouched
    ]);
    const statuses = () => counter(metrics, 'action_store_requested_actions_total', 'status');
    await waitFor(async () => (await statuses()).duplicate === 1, { timeoutMs: 5000, what: 'the redelivered action' });
    expect(await statuses()).toEqual({ created: 1, capped: 1, duplicate: 1 });
    expect((await drainLog(store)).map((e) => `${e.kind} ${e.inv_id} ${e.reason} ${e.available_at}`)).toEqual([
      `created 7  ${Date.UTC(2030, 0, 1, 3, 15)}`,
      'capped 8 campaign_cap null',
    ]);
    expect((await store.pull('app-1', pullAll)).data).toEqual([]);
    clock.set(Date.UTC(2030, 0, 1, 3, 15));
    expect((await store.pull('app-1', pullAll)).data.map((r) => r.payload.internal.ref)).toEqual(['7:1']);
    await producer.close();
  });

  it('retries a batch while the store is unavailable, then stores it once', async () => {
    const store = new InMemoryActionStore({ clock: new ManualClock(Date.UTC(2030, 0, 1)) });
    const create = store.create.bind(store);
    let failures = 2;
    store.create = async (app, actions, opts) => {
      if (failures-- > 0) throw new InfraError('redis', 'down', { retriable: true });
      return create(app, actions, opts);
    };
    subs.push(await startActionRequestsConsumer({ bus, store, logger }));
    const producer = await bus.producer();
    await producer.send(topics.actionsRequested, [actionRequestMessage('app-1', [requested('u1', 1, 1)])]);
    await waitFor(async () => (await store.stats('app-1', 1))?.totals.created === 1, { timeoutMs: 5000, what: 'the action after retries' });
    expect(failures).toBe(-1);
    await producer.close();
  });
});

describe('feedback consumer', () => {
  it('counts nudge_response / action_response per action and user once, ignores other events', async () => {
    const store = new InMemoryActionStore({ clock: new ManualClock(Date.UTC(2030, 0, 1)) });
    await store.create('app-1', [requested('u1', 7, 9), requested('u2', 7, 9)]);
    const metrics = new Registry();
    // JSON stands in for the Avro codec here; main.ts decodes with the registry.
    const decode = async (value: Buffer) => JSON.parse(value.toString()) as FeedbackEventLike;
    subs.push(await startFeedbackConsumer({ bus, store, logger, decode, metrics }));
    const ev = (user: string, name: string, props: Record<string, unknown>) => ({
      key: `app-1:${user}`,
      value: Buffer.from(JSON.stringify({ app_id: 'app-1', user_id: user, name, props })),
    });
    const producer = await bus.producer();
    await producer.send(topics.actionsFeedback, [
      ev('u1', 'nudge_response', { ref: '7:9', time: 't', response: 'shown' }),
      ev('u1', 'nudge_response', { ref: '7:9', time: 't', response: 'shown' }),
      ev('u1', 'action_response', { ref: '7:9', time: 't', response: 'open' }),
      ev('u2', 'nudge_response', { ref: '7:9', time: 't', response: 'block' }),
      ev('u3', 'nudge_response', { ref: '7:9', time: 't', response: 'shown' }),
      ev('u1', 'nudge_response', { ref: 'garbage', time: 't', response: 'shown' }),
      ev('u1', 'nudge_response', { ref: '7:9', time: 't', response: 'clicked' }),
      ev('u1', 'page', { path: '/', title: 'Home' }),
      { key: 'x', value: Buffer.from('{') },
    ]);
    await waitFor(async () => Object.values(await counter(metrics, 'action_store_feedback_events_total')).reduce((a, b) => a + b, 0) === 7, {
      timeoutMs: 5000,
      what: '7 counted outcomes',
    });
    await waitFor(async () => (await deadLetters(bus)).length === 1 || undefined, { timeoutMs: 5000, what: 'the dead letter' });
    // The undecodable one is dead-lettered (it was counted `undecodable` and skipped). u3 has no 7:9 and
    // `garbage` is no ref the platform issued: both unknown (docs/data-contract.md).
    expect(await counter(metrics, 'action_store_feedback_events_total')).toEqual({ recorded: 3, repeated: 1, unknown: 2, invalid: 1 });
    expect((await deadLetters(bus)).map(facts)).toEqual([
      {
        source: { topic: topics.actionsFeedback, partition: expect.any(Number), offset: expect.stringMatching(/^\d+$/), key: 'x' },
        group: 'action-store.feedback',
        error: { kind: 'unreadable', message: expect.stringMatching(/^not an event: /), retriable: false },
        processor: { name: 'action-store', version: '0.1.0' },
        value: '{',
        headers: {},
        replay: null,
      },
    ]);
    expect(bus.deadLetterCounts()).toEqual([{ sourceTopic: topics.actionsFeedback, group: 'action-store.feedback', count: 1 }]);
    expect((await store.stats('app-1', 9))?.totals.responses).toEqual({ shown: 1, open: 1, discard: 0, block: 1, expired: 0, error: 0 });
    // u2 blocked action 9: it is withdrawn, u1's stays.
    expect((await store.pull('app-1', pullAll)).data.map((r) => r.user_id)).toEqual(['u1']);
    await producer.close();
  });

  it('with fromCore, skips events.core events whose name header names another event without decoding them; decodes those named feedback and those without the header', async () => {
    const store = new InMemoryActionStore({ clock: new ManualClock(Date.UTC(2030, 0, 1)) });
    await store.create('app-1', [requested('u1', 7, 9)]);
    const metrics = new Registry();
    const decoded: string[] = [];
    const decode = async (value: Buffer) => {
      const e = JSON.parse(value.toString()) as FeedbackEventLike;
      decoded.push(`${e.name}:${e.user_id}`);
      return e;
    };
    subs.push(await startFeedbackConsumer({ bus, store, logger, decode, metrics, fromCore: true }));
    const ev = (user: string, name: string, header: string | undefined, props: Record<string, unknown>) => ({
      key: `app-1:${user}`,
      value: Buffer.from(JSON.stringify({ app_id: 'app-1', user_id: user, name, props })),
      headers: { app_id: 'app-1', ...(header === undefined ? {} : { name: header }) },
    });
    const producer = await bus.producer();
    await producer.send(topics.events('core'), [
      ev('u1', 'page', 'page', { path: '/' }),
      // Not decodable, but named as another event: never read.
      { key: 'app-1:u9', value: Buffer.from('{'), headers: { app_id: 'app-1', name: 'identify' } },
      ev('u1', 'nudge_response', 'nudge_response', { ref: '7:9', time: 't', response: 'shown' }),
      ev('u1', 'action_response', 'action_response', { ref: '7:9', time: 't', response: 'open' }),
      ev('u1', 'nudge_response', undefined, { ref: '7:9', time: 't', response: 'discard' }),
      ev('u2', 'page', undefined, { path: '/' }),
    ]);
    await waitFor(async () => (await counter(metrics, 'action_store_feedback_events_total')).recorded === 3, { timeoutMs: 5000, what: '3 recorded' });
    expect(decoded.sort()).toEqual(['action_response:u1', 'nudge_response:u1', 'nudge_response:u1', 'page:u2']);
    expect((await store.stats('app-1', 9))?.totals.responses).toEqual({ shown: 1, open: 1, discard: 1, block: 0, expired: 0, error: 0 });
    await producer.close();
  });

  // What the validator writes (raw-outputs.ts): 1,000 named events on events.core, 10 of them
  // nudge_response, and a copy of those 10 on actions.feedback. Responses at i = 99, 199, … 999: users
  // i % 7 = u1 u3 u5 u0 u2 u4 u6 u1 u3 u5 (each with action 7:9), so 7 recorded and 3 repeated.
  async function mixedStream(opts: { fromCore?: boolean }) {
    const store = new InMemoryActionStore({ clock: new ManualClock(Date.UTC(2030, 0, 1)) });
    await store.create(
      'app-1',
      Array.from({ length: 7 }, (_, u) => requested(`u${u}`, 7, 9)),
    );
    const metrics = new Registry();
    const decodedFrom = new Map<string, number>();
    const decode = async (value: Buffer) => {
      const e = JSON.parse(value.toString()) as FeedbackEventLike & { from: string };
      decodedFrom.set(e.from, (decodedFrom.get(e.from) ?? 0) + 1);
      return e;
    };
    subs.push(await startFeedbackConsumer({ bus, store, logger, decode, metrics, ...opts }));
    const names = ['page', 'app', 'identify', 'media'];
    const event = (i: number, from: string) => {
      const name = (i + 1) % 100 === 0 ? 'nudge_response' : (names[i % names.length] as string);
      const props = name === 'nudge_response' ? { ref: '7:9', time: 't', response: 'shown' } : { path: '/' };
      return {
        key: `app-1:u${i % 7}`,
        // `from` tells the decoder which topic a value came from (the validator writes the same bytes to both).
        value: Buffer.from(JSON.stringify({ app_id: 'app-1', user_id: `u${i % 7}`, name, props, from })),
        headers: { app_id: 'app-1', name },
      };
    };
    const core = Array.from({ length: 1_000 }, (_, i) => event(i, 'core'));
    const copies = Array.from({ length: 1_000 }, (_, i) => i)
      .filter((i) => (i + 1) % 100 === 0)
      .map((i) => event(i, 'feedback'));
    const producer = await bus.producer();
    await producer.sendBatch([
      { topic: topics.events('core'), messages: core },
      { topic: topics.actionsFeedback, messages: copies },
    ]);
    await producer.close();
    const total = async () => Object.values(await counter(metrics, 'action_store_feedback_events_total')).reduce((n, v) => n + v, 0);
    return { store, metrics, decodedFrom, total };
  }

  it('reads only actions.feedback: of 1,000 events.core events and the 10 feedback copies, decodes exactly the 10 copies', async () => {
    const { metrics, decodedFrom, total } = await mixedStream({});
    await waitFor(async () => (await total()) === 10, { timeoutMs: 5000, what: '10 responses counted' });
    expect(await counter(metrics, 'action_store_feedback_events_total')).toEqual({ recorded: 7, repeated: 3 });
    expect(Object.fromEntries(decodedFrom)).toEqual({ feedback: 10 });
  });

  it('with fromCore (an upgrade), also decodes the 10 feedback events of events.core, skipping the 990 others by header; each response counts once', async () => {
    const { store, metrics, decodedFrom, total } = await mixedStream({ fromCore: true });
    await waitFor(async () => (await total()) === 20, { timeoutMs: 5000, what: '20 responses counted' });
    // The 10 copies repeat what the originals recorded (either may come first): still 7 recorded.
    expect(await counter(metrics, 'action_store_feedback_events_total')).toEqual({ recorded: 7, repeated: 13 });
    expect(Object.fromEntries(decodedFrom)).toEqual({ core: 10, feedback: 10 });
    expect((await store.stats('app-1', 9))?.totals.responses).toEqual({ shown: 7, open: 0, discard: 0, block: 0, expired: 0, error: 0 });
  });

  it('keeps the details of error responses; identify blocked/unblocked do not touch action blocks', async () => {
    const store = new InMemoryActionStore({ clock: new ManualClock(Date.UTC(2030, 0, 1)) });
    await store.create('app-1', [requested('u1', 7, 9), requested('u2', 7, 9)]);
    const metrics = new Registry();
    const decode = async (value: Buffer) => JSON.parse(value.toString()) as FeedbackEventLike;
    subs.push(await startFeedbackConsumer({ bus, store, logger, decode, metrics }));
    const ev = (user: string, name: string, props: Record<string, unknown>) => ({
      key: `app-1:${user}`,
      value: Buffer.from(JSON.stringify({ app_id: 'app-1', user_id: user, name, props })),
    });
    const producer = await bus.producer();
    // One key per user keeps each user's events in order on one partition, as in production.
    await producer.send(topics.actionsFeedback, [
      ev('u1', 'nudge_response', { ref: '7:9', time: 't', response: 'error', details: 'template variable {name} missing' }),
      ev('u2', 'action_response', { ref: '7:9', time: 't', response: 'block' }),
      // The unblock path is the API (DELETE /v1/actions/{id}/blocks/{user}): an account-level
      // identify must not bring back nudges the user turned off.
      ev('u2', 'identify', { action: 'unblocked', blocked: { reason: 'appeal accepted' } }),
      ev('u1', 'identify', { action: 'blocked', blocked: { reason: 'abuse' } }),
      // Sentinels behind the identify events on the same keys: once they count, the identify
      // events before them have been handled.
      ev('u2', 'nudge_response', { ref: '7:9', time: 't', response: 'shown' }),
      ev('u1', 'nudge_response', { ref: '7:9', time: 't', response: 'open' }),
    ]);
    await waitFor(async () => (await counter(metrics, 'action_store_feedback_events_total')).recorded === 4, {
      timeoutMs: 5000,
      what: '4 recorded responses',
    });
    expect(await counter(metrics, 'action_store_feedback_events_total')).toEqual({ recorded: 4 });
    expect((await store.stats('app-1', 9))?.last_errors).toEqual([
      { user_id: 'u1', inv_id: 7, details: 'template variable {name} missing', at: '2030-01-01T00:00:00.000000Z' },
    ]);
    expect((await store.create('app-1', [requested('u2', 8, 9)]))[0]?.status).toBe('blocked');
    expect((await store.create('app-1', [requested('u1', 8, 9)]))[0]?.status).toBe('created');
    expect(await store.unblock('app-1', 'u2', 9)).toBe('unblocked');
    expect((await store.create('app-1', [requested('u2', 8, 9)]))[0]?.status).toBe('created');
    await producer.close();
  });
});

describe('feedback from the Kenkai client (its action_response, built from a pulled action)', () => {
  it('ties responses to their actions through the copy of internal; its block (no notification permission) is a delivery error, not a block', async () => {
    const store = new InMemoryActionStore({ clock: new ManualClock(Date.UTC(2030, 0, 1)) });
    await store.create('app-1', [requested('u1', 4, 9), requested('u1', 4, 10)]);
    const pulled = (await store.pull('app-1', { user_id: 'u1', type: 'message', render_method: 'push_notification', delivery_mode: 'one-off' })).data;
    expect(pulled.map((r) => r.payload.internal.ref)).toEqual(['4:9', '4:10']);
    // What CFNotificationController.track sends: response, and the pulled `internal` object flattened into ctx.
    const log = (record: (typeof pulled)[number], response: string) => ({
      time: '2030-01-01T00:00:05Z',
      name: 'action_response',
      property: response,
      ctx: { response, ...record.payload.internal, __ol: true },
    });
    const upload = {
      id: 'u1',
      tz: 'Z',
      internal: { s_id: 'u1_1_1', sdk: 'ios/1.0.1', app_id: 'com.example', app_version: '2.3 (45)', device_id: 'D', device_os: 'iOS' },
      data: [log(pulled[0]!, 'shown'), log(pulled[0]!, 'open'), log(pulled[1]!, 'block')],
    };
    // The validator's normalisation, then the canonical events as the feedback consumer reads them.
    const normalized = normalizeUpload(upload, { appId: 'app-1', requestId: 'r', receivedAt: Date.UTC(2030, 0, 1), keyId: 'k' });
    expect(normalized.rejected).toEqual([]);
    expect(normalized.accepted.map((a) => [a.event.name, a.event.props.ref, a.event.props.time, a.event.props.response])).toEqual([
      ['nudge_response', '4:9', pulled[0]!.payload.internal.ref_time, 'shown'],
      ['nudge_response', '4:9', pulled[0]!.payload.internal.ref_time, 'open'],
      ['nudge_response', '4:10', pulled[1]!.payload.internal.ref_time, 'error'],
    ]);
    const metrics = new Registry();
    const decode = async (value: Buffer) => JSON.parse(value.toString()) as FeedbackEventLike;
    subs.push(await startFeedbackConsumer({ bus, store, logger, decode, metrics }));
    const producer = await bus.producer();
    await producer.send(
      topics.actionsFeedback,
      normalized.accepted.map((a) => ({ key: `app-1:${a.event.user_id}`, value: Buffer.from(JSON.stringify(a.event)) })),
    );
    await waitFor(async () => (await counter(metrics, 'action_store_feedback_events_total')).recorded === 3, { timeoutMs: 5000, what: '3 recorded responses' });
    expect((await store.stats('app-1', 9))?.totals).toMatchObject({
      delivered: 1,
      responses: { shown: 1, open: 1, discard: 0, block: 0, expired: 0, error: 0 },
    });
    const failed = await store.stats('app-1', 10);
    expect(failed?.totals.responses).toEqual({ shown: 0, open: 0, discard: 0, block: 0, expired: 0, error: 1 });
    expect(failed?.last_errors.map((e) => [e.user_id, e.inv_id, e.details])).toEqual([['u1', 4, expect.stringContaining('not authorised')]]);
    // Not a block: the action id can be sent to this user again.
    expect((await store.create('app-1', [requested('u1', 5, 10)]))[0]?.status).toBe('created');
    await producer.close();
  });
});

describe('feedback consumer logging', () => {
  it('counts responses to nudges the platform never issued in /metrics without a log line each; malformed ones are still logged', async () => {
    const store = new InMemoryActionStore({ clock: new ManualClock(Date.UTC(2030, 0, 1)) });
    const lines: { msg: string; level: number }[] = [];
    const captured = createLogger('test', 'info', { write: (s: string) => void lines.push(JSON.parse(s) as { msg: string; level: number }) });
    const metrics = new Registry();
    const decode = async (value: Buffer) => JSON.parse(value.toString()) as FeedbackEventLike;
    subs.push(await startFeedbackConsumer({ bus, store, logger: captured, decode, metrics, groupId: 'feedback-logging' }));
    const ev = (props: Record<string, unknown>) => ({
      key: 'app-1:u1',
      value: Buffer.from(JSON.stringify({ app_id: 'app-1', user_id: 'u1', name: 'nudge_response', props })),
    });
    const producer = await bus.producer();
    // The generator's invented ids (negative, beyond 2^53) and a well-shaped ref no action has.
    const invented = Array.from({ length: 50 }, (_, i) => ev({ ref: String(-4611686018427388000 + i * 1024), time: 't', response: 'open' }));
    await producer.send(topics.actionsFeedback, [
      ...invented,
      ev({ ref: '123:456', time: 't', response: 'shown' }),
      ev({ ref: 5, time: 't', response: 'shown' }),
    ]);
    await waitFor(async () => Object.values(await counter(metrics, 'action_store_feedback_events_total')).reduce((a, b) => a + b, 0) === 52, {
      timeoutMs: 5000,
      what: '52 counted outcomes',
    });
    expect(await counter(metrics, 'action_store_feedback_events_total')).toEqual({ unknown: 51, invalid: 1 });
    expect(lines.filter((l) => l.level >= 40).map((l) => l.msg)).toEqual(['skipping a malformed nudge_response']);
    await producer.close();
  });
});
