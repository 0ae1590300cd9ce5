import { readRowBinary } from '@evp/clickhouse';
import { DEAD_LETTER_HEADERS, InfraError, deadLetterId, topics, type Analytics, type Bus, type BusMessage } from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { useMigratedChdb, waitFor } from '@evp/testkit';
import { nth, type SinkHarness, type SinkHarnessOptions, startSinkHarness } from '../testing';

// No row can hold a partition: rows ClickHouse refuses are stored in a form it takes, or isolated
// and dead-lettered while the rest of their insert is stored and the partition moves on.
const chdb = useMigratedChdb('sink_iso');
let analytics: Analytics;

beforeAll(async () => {
  analytics = chdb.analytics;
});

const running: SinkHarness[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((h) => h.close()));
});
async function start(opts: Partial<SinkHarnessOptions> = {}): Promise<SinkHarness> {
  const bus = createInProcessBus({ retryDelayMs: 5, maxRetryDelayMs: 20 });
  const h = await startSinkHarness({ bus, registry: createInProcessRegistry(), analytics, ...opts });
  running.push(h);
  return h;
}

const countOf = async (app: string) =>
  (await analytics.query<{ c: number }>(`SELECT count() AS c FROM events WHERE app_id = {app:String}`, { app }))[0]?.c ?? 0;

/** Every message on deadletters, read by a group of its own. */
async function deadLetters(h: SinkHarness): Promise<BusMessage[]> {
  const seen: BusMessage[] = [];
  const sub = await h.bus.subscribe({
    groupId: 'dead-letter-probe',
    topics: [topics.deadLetters],
    handleBatch: async (b) => {
      seen.push(...b.messages);
    },
  });
  running.push({ ...h, close: () => sub.stop() });
  return seen;
}

/** The sink group's lag per topic, as its bus reports it. */
const lagOf = async (h: SinkHarness) => h.bus.consumerLag().flatMap((l) => (l.group === 'segmenter-sink' ? [[l.topic, l.messages]] : []));

describe('no row can hold a partition (in-process bus + registry, chdb)', () => {
  it('stores lone UTF-16 surrogates as U+FFFD wherever they sit, and the events after them on the partition', async () => {
    const app = 'app-surrogate';
    const h = await start();
    const bad = 'x\ud800y';
    const events = [
      { ...nth(app, 1), user_id: bad },
      { ...nth(app, 2), device_id: `\udfff${bad}` },
      { ...nth(app, 3), props: { ...nth(app, 3).props, title: bad } },
      { ...nth(app, 4), meta: { [bad]: [bad, '😀'] } },
      { ...nth(app, 5), client: { a_id: bad, d_info: { id: bad } } },
      nth(app, 6),
    ];
    // One key: every event on one partition, the clean one last.
    await h.send(topics.events('core'), await Promise.all(events.map(async (e) => ({ ...(await h.event(e)), key: `${app}:one` }))));
    await waitFor(async () => (await countOf(app)) === 6, { timeoutMs: 10_000, what: 'six rows' });
    const rows = await analytics.query(
      `SELECT event_id, user_id, device_id, props.title::String AS title, meta, toJSONString(client) AS client FROM events WHERE app_id = {app:String} ORDER BY event_id`,
      { app },
    );
    const ok = 'x\ufffdy';
    // Avro string fields come back with one U+FFFD per byte of the lone surrogate's 3-byte form
    // (avsc writes it as ED A0 80, Node decodes each invalid byte as U+FFFD): readable, stored.
    const viaAvro = 'x\ufffd\ufffd\ufffdy';
    const clean = { user_id: 'user-42', device_id: 'dev-9', title: 'Home', meta: '{"campaign":"spring","n":1}', client: '{}' };
    expect(rows).toEqual([
      { ...clean, event_id: `${app}-e1`, user_id: viaAvro },
      { ...clean, event_id: `${app}-e2`, device_id: `\ufffd\ufffd\ufffd${viaAvro}` },
      { ...clean, event_id: `${app}-e3`, title: viaAvro },
      { ...clean, event_id: `${app}-e4`, meta: `{"${ok}":["${ok}","😀"]}` },
      { ...clean, event_id: `${app}-e5`, client: `{"a_id":"${ok}","d_info":{"id":"${ok}"}}` },
      { ...clean, event_id: `${app}-e6` },
    ]);
  });

  it('dead-letters the message of a row refused for a reason no retry cures, with provenance, stores every other row and commits', async () => {
    const app = 'app-refused';
    const poison = `${app}-e3`;
    const refusing: Analytics = {
      ...analytics,
      insertRowBinary: async (table, block, opts) => {
        if (block.rows.some((r) => readRowBinary(block.types, r)[0]?.[0] === poison)) {
          throw new InfraError('clickhouse', 'insert into events failed (code 117): Cannot parse JSON object here', { retriable: false });
        }
        await analytics.insertRowBinary(table, block, opts);
      },
    };
    const h = await start({ analytics: refusing });
    const letters = await deadLetters(h);
    const sent = await Promise.all([1, 2, 3, 4, 5].map(async (i) => ({ ...(await h.event(nth(app, i))), key: `${app}:one` })));
    await h.send(topics.events('core'), sent);
    await waitFor(() => letters.length === 1 || undefined, { timeoutMs: 10_000, what: 'the dead letter' });
    await waitFor(async () => (await lagOf(h))[0]?.[1] === 0 || undefined, { timeoutMs: 10_000, what: 'the batch committed' });
    const stored = await analytics.query<{ event_id: string }>(`SELECT event_id FROM events WHERE app_id = {app:String} ORDER BY event_id`, { app });
    expect(stored.map((r) => r.event_id)).toEqual([1, 2, 4, 5].map((i) => `${app}-e${i}`));
    const [letter] = letters as [BusMessage];
    expect({ key: letter.key, value: letter.value.equals(sent[2]!.value), headers: { ...letter.headers, [DEAD_LETTER_HEADERS.failedAt]: 'at' } }).toEqual({
      key: `${app}:one`,
      value: true,
      headers: {
        [DEAD_LETTER_HEADERS.id]: deadLetterId('segmenter-sink', {
          topic: 'events.core',
          partition: Number(letter.headers[DEAD_LETTER_HEADERS.sourcePartition]),
          offset: '2',
          key: `${app}:one`,
          value: sent[2]!.value,
        }),
        [DEAD_LETTER_HEADERS.sourceTopic]: 'events.core',
        [DEAD_LETTER_HEADERS.sourcePartition]: expect.stringMatching(/^[0-2]$/),
        [DEAD_LETTER_HEADERS.sourceOffset]: '2',
        [DEAD_LETTER_HEADERS.sourceHasKey]: '1',
        [DEAD_LETTER_HEADERS.group]: 'segmenter-sink',
        [DEAD_LETTER_HEADERS.errorKind]: 'refused',
        [DEAD_LETTER_HEADERS.errorMessage]: 'insert into events: clickhouse: insert into events failed (code 117): Cannot parse JSON object here',
        [DEAD_LETTER_HEADERS.errorRetriable]: 'false',
        [DEAD_LETTER_HEADERS.processor]: 'segmenter-sink',
        [DEAD_LETTER_HEADERS.processorVersion]: '0.1.0',
        [DEAD_LETTER_HEADERS.failedAt]: 'at',
      },
    });
    expect(h.bus.deadLetterCounts()).toEqual([{ sourceTopic: 'events.core', group: 'segmenter-sink', count: 1 }]);
    expect(new Date(letter.headers[DEAD_LETTER_HEADERS.failedAt] as string).getTime()).toBeGreaterThan(Date.now() - 60_000);
    const metric = (await h.sink.metrics.getSingleMetric('segmenter_sink_dead_lettered_total')!.get()).values;
    expect(metric).toEqual([{ value: 1, labels: { table: 'events' } }]);
  });

  it('commits nothing while the dead-letter write fails, and moves on once it succeeds', async () => {
    const app = 'app-dl-down';
    const poison = `${app}-e2`;
    let deadLetterDown = true;
    let refusals = 0;
    const refusing: Analytics = {
      ...analytics,
      insertRowBinary: async (table, block, opts) => {
        if (block.rows.some((r) => readRowBinary(block.types, r)[0]?.[0] === poison)) {
          refusals++;
          throw new InfraError('clickhouse', 'insert failed (code 117): bad row', { retriable: false });
        }
        await analytics.insertRowBinary(table, block, opts);
      },
    };
    const failingDeadLetters = (bus: Bus): Bus => ({
      ...bus,
      producer: async () => {
        const p = await bus.producer();
        return {
          ...p,
          send: async (topic, messages) => {
            if (topic === topics.deadLetters && deadLetterDown) throw new InfraError('bus', 'broker unreachable', { retriable: true });
            await p.send(topic, messages);
          },
        };
      },
    });
    const h = await start({ analytics: refusing, busForSink: failingDeadLetters });
    const letters = await deadLetters(h);
    await h.send(topics.events('core'), await Promise.all([1, 2, 3].map(async (i) => ({ ...(await h.event(nth(app, i))), key: `${app}:one` }))));
    // The batch comes back again and again: its offsets were not committed.
    await waitFor(() => refusals >= 6 || undefined, { timeoutMs: 10_000, what: 'redeliveries' });
    expect([letters.length, await lagOf(h)]).toEqual([0, []]);
    deadLetterDown = false;
    await waitFor(async () => (await lagOf(h))[0]?.[1] === 0 || undefined, { timeoutMs: 10_000, what: 'the batch committed' });
    expect(letters.map((l) => l.headers[DEAD_LETTER_HEADERS.sourceOffset])).toEqual(['1']);
    const stored = await analytics.query<{ event_id: string; c: number }>(
      `SELECT event_id, count() AS c FROM events FINAL WHERE app_id = {app:String} GROUP BY event_id ORDER BY event_id`,
      { app },
    );
    expect(stored).toEqual([1, 3].map((i) => ({ event_id: `${app}-e${i}`, c: 1 })));
  });
});
