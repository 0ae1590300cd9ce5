import { Registry } from 'prom-client';
import { createLogger, topics } from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { suppressedOn, waitFor } from '@evp/testkit';
import { startValidator } from './validator';

const logger = createLogger('validator-suppression-test', 'silent');
const hashKey = 'validator-suppression-test-key-0123456789';

const envelope = (user: string, patientId: string) => ({
  id: user,
  tz: '+00:00',
  internal: { s_id: `${user}_1700000000000_0`, sdk: 'android/2.4.1', a_id: 'a', a_ver: '1.2.3 (45)', d_id: 'd-1', os: 'android' },
  data: [
    {
      time: '2024-01-01 00:00:00.000',
      name: 'patient',
      property: 'add',
      ctx: { __ol: true, patient_id: patientId, site_id: 's-1', action: 'add', category: 'facility', type: 'outpatient' },
    },
  ],
});

describe('validator: suppressed people', () => {
  it('drops the events of a suppressed user and those naming a suppressed patient, and their catalog records, counted', async () => {
    const bus = createInProcessBus({ retryDelayMs: 5 });
    const suppressions = await suppressedOn(bus, hashKey, [
      { appId: 'app-1', kind: 'user', id: 'u-gone' },
      { appId: 'app-1', kind: 'patient', id: 'p-gone' },
    ]);
    const producer = await bus.producer();
    const registry = createInProcessRegistry();
    const metrics = new Registry();
    const validator = await startValidator({ bus, registry, logger, metrics, suppressions, config: { workers: 0 } });
    const out: { topic: string; key: string | null }[] = [];
    const sub = await bus.subscribe({
      groupId: 'reader',
      topics: [topics.events('patient_mgmt'), topics.catalog('patient')],
      handleBatch: async (b) => void out.push(...b.messages.map((m) => ({ topic: m.topic, key: m.key }))),
    });
    const raw = (i: number, payloadKind: string, body: unknown) => ({
      key: `app-1:${i}`,
      value: Buffer.from(JSON.stringify(body)),
      headers: {
        app_id: 'app-1',
        request_id: `req-${i}`,
        received_at: '1700000100000',
        key_id: 'k-sdk',
        payload_kind: payloadKind,
        envelope_index: '0',
        envelope_count: '1',
      },
    });
    await producer.send(topics.raw, [
      raw(1, 'log', envelope('u-gone', 'p-ok')),
      raw(2, 'log', envelope('u-kept', 'p-gone')),
      raw(3, 'log', envelope('u-kept', 'p-ok')),
      raw(4, 'catalog:patient', [{ id: 'p-gone' }, { id: 'p-ok' }]),
    ]);
    await waitFor(() => out.length >= 2 || undefined, { timeoutMs: 10_000, what: 'the kept event and record' });
    const suppressed = async () => (await metrics.getSingleMetric('validator_suppressed_total')?.get())?.values.map((v) => [v.labels.kind, v.value]);
    await waitFor(async () => ((await suppressed())?.length === 2 ? true : undefined), { timeoutMs: 10_000, what: 'the counts' });
    expect(out.sort((a, b) => a.topic.localeCompare(b.topic))).toEqual([
      { topic: 'catalog.patient', key: 'app-1:p-ok' },
      { topic: 'events.patient_mgmt', key: 'app-1:u-kept' },
    ]);
    expect((await suppressed())?.sort()).toEqual([
      ['catalog', 1],
      ['event', 2],
    ]);
    await sub.stop();
    await validator.stop();
    await suppressions.close();
    await bus.close();
  });
});
