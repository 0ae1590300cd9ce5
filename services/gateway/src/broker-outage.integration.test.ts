import request from 'supertest';
import pino from 'pino';
import { rawHeaders } from '@evp/contract';
import { topics } from '@evp/core';
import { createKafkaBus } from '@evp/kafka';
import { createThrowawayKafka, type ThrowawayKafka, uniqueName, waitFor } from '@evp/testkit';
import { createGatewayApp } from './app';
import { coalescingProducer } from './coalescing-producer';
import { gatewayReadiness } from './readiness';
import { SDK, envelope, testKeys } from './test-fixtures';

/**
 * The promise of the gateway under a broker outage, on a private broker (never the shared one):
 * 503 + Retry-After while Kafka is gone, 200 again after it returns, and every request answered 200
 * is in the raw topic exactly once (each of its envelopes, no duplicates, none missing).
 */
describe('gateway when the broker stops mid-run', () => {
  let kafka: ThrowawayKafka;
  beforeAll(async () => {
    kafka = await createThrowawayKafka();
  });
  afterAll(async () => {
    await kafka?.destroy();
  });

  it('answers 503 while it is down, recovers, and loses or duplicates no acknowledged event', async () => {
    const logger = pino({ level: 'silent' });
    const bus = createKafkaBus({ brokers: [kafka.brokers], clientId: uniqueName('gw-outage'), logger, produceTimeoutMs: 2_000, connectionTimeoutMs: 1_000 });
    await bus.ensureTopics([{ name: topics.raw, partitions: 3 }]);
    // As main.ts wires it: the coalescing producer over the bus's idempotent acks=all producer.
    const producer = coalescingProducer(await bus.producer(), { queueTimeoutMs: 2_000 });
    const { app } = createGatewayApp({
      producer,
      keys: testKeys,
      logger,
      corsOrigins: [],
      limits: { maxBodyBytes: 1 << 20, maxEventsPerRequest: 5000, retryAfterSeconds: 3 },
      readiness: gatewayReadiness({ bus }),
    });

    const acked = new Map<string, number>(); // request id → envelopes in it
    const statuses: number[] = [];
    let n = 0;
    const send = async () => {
      const id = `req-${n++}`;
      const res = await request(app)
        .post('/v1/ingest/log')
        .set('Authorization', `Bearer ${SDK}`)
        .set('X-Request-Id', id)
        .send([envelope(`u${n % 7}`, 2), envelope(`v${n % 5}`, 3)]);
      statuses.push(res.status);
      if (res.status === 200) {
        expect(res.body.accepted).toBe(5);
        acked.set(id, 2);
      } else {
        expect(res.status).toBe(503);
        expect(res.headers['retry-after']).toBe('3');
        expect(res.body.error.code).toBe('unavailable');
      }
      return res.status;
    };
    const burst = (k: number) => Promise.all(Array.from({ length: k }, send));

    for (let i = 0; i < 5; i++) expect(await burst(10)).toEqual(Array(10).fill(200));
    expect((await request(app).get('/readyz')).status).toBe(200);

    // Stop the broker while requests are in flight: those answer 200 (acked before) or 503.
    const during = burst(20);
    await kafka.stop({ kill: true });
    await during;
    const down = await burst(10);
    expect(down).toEqual(Array(10).fill(503));
    expect((await request(app).get('/readyz')).status).toBe(503);

    await kafka.start();
    await waitFor(async () => (await send()) === 200, { timeoutMs: 60_000, intervalMs: 200, what: 'a 200 after the broker restart' });
    for (let i = 0; i < 5; i++) expect(await burst(10)).toEqual(Array(10).fill(200));
    await waitFor(async () => (await request(app).get('/readyz')).status === 200, { timeoutMs: 30_000, what: 'ready again' });

    // Read the whole raw topic back and count each acknowledged request's messages.
    const seen = new Map<string, number>();
    let total = 0;
    const sub = await bus.subscribe({
      groupId: uniqueName('outage-probe'),
      topics: [topics.raw],
      fromBeginning: true,
      handleBatch: async (b) => {
        for (const m of b.messages) {
          total += 1;
          const id = m.headers[rawHeaders.requestId] as string;
          seen.set(id, (seen.get(id) ?? 0) + 1);
        }
      },
    });
    const expected = [...acked.values()].reduce((a, b) => a + b, 0);
    await waitFor(() => [...acked.keys()].every((id) => seen.get(id) === acked.get(id)) && total >= expected, {
      timeoutMs: 60_000,
      what: 'every acknowledged message',
    });
    for (const [id, count] of acked) expect([id, seen.get(id)]).toEqual([id, count]);
    // A 503'd request may still have reached Kafka (at-least-once; the client retries) but never twice.
    for (const [id, count] of seen) expect([id, count]).toEqual([id, 2]);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThanOrEqual(10);
    expect(acked.size).toBeGreaterThanOrEqual(100);

    await sub.stop();
    await producer.close();
    await bus.close();
  });
});
