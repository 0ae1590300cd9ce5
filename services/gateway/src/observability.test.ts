import request from 'supertest';
import { createInProcessBus } from '@evp/embedded';
import { API, SDK, envelope, harness } from './test-fixtures';

const sample = (text: string, line: string) => {
  const m = text.split('\n').find((l) => l.startsWith(`${line} `));
  return m ? Number(m.slice(line.length + 1)) : 0;
};

describe('gateway metrics and logs', () => {
  it('moves requests by route/status, events, bytes, latency and produce latency', async () => {
    const s = await harness(createInProcessBus());
    const body = JSON.stringify(envelope('u', 3));
    await request(s.app).post('/v1/ingest/log').set('Authorization', `Bearer ${SDK}`).set('Content-Type', 'application/json').send(body);
    await request(s.app)
      .post('/v1/ingest/catalog/drug')
      .set('Authorization', `Bearer ${SDK}`)
      .send([{ id: 'd' }, { id: 'e' }]);
    await request(s.app).post('/v1/ingest/log').send(envelope('u'));
    const text = (await request(s.app).get('/metrics')).text;
    expect(sample(text, 'gateway_http_requests_total{route="/v1/ingest/log",method="POST",status="200"}')).toBe(1);
    expect(sample(text, 'gateway_http_requests_total{route="/v1/ingest/log",method="POST",status="401"}')).toBe(1);
    expect(sample(text, 'gateway_http_requests_total{route="/v1/ingest/catalog/:kind",method="POST",status="200"}')).toBe(1);
    expect(sample(text, 'gateway_events_accepted_total{kind="log"}')).toBe(3);
    expect(sample(text, 'gateway_events_accepted_total{kind="catalog"}')).toBe(2);
    expect(sample(text, 'gateway_ingest_bytes_total')).toBe(Buffer.byteLength(body) + Buffer.byteLength('[{"id":"d"},{"id":"e"}]'));
    expect(sample(text, 'gateway_http_request_duration_seconds_count{route="/v1/ingest/log",method="POST"}')).toBe(2);
    expect(sample(text, 'gateway_produce_duration_seconds_count{outcome="ok"}')).toBe(2);
    await s.close();
  });

  it('counts failed produces under outcome="error"', async () => {
    const s = await harness(createInProcessBus(), { closedProducer: true });
    await request(s.app).post('/v1/ingest/log').set('Authorization', `Bearer ${SDK}`).send(envelope('u'));
    const text = (await request(s.app).get('/metrics')).text;
    expect(sample(text, 'gateway_produce_duration_seconds_count{outcome="error"}')).toBe(1);
    expect(sample(text, 'gateway_http_requests_total{route="/v1/ingest/log",method="POST",status="503"}')).toBe(1);
    await s.close();
  });

  it('logs one structured line per request with its request id, and never a key', async () => {
    const s = await harness(createInProcessBus(), { closedProducer: true });
    const wrong = 'wrong-key-that-must-not-be-logged';
    await request(s.app).post('/v1/ingest/log').set('Authorization', `Bearer ${SDK}`).set('X-Request-Id', 'r-503').send(envelope('u'));
    await request(s.app).post('/v1/ingest/log').set('Authorization', `Bearer ${API}`).set('X-Request-Id', 'r-403').send(envelope('u'));
    await request(s.app).post('/v1/ingest/log').set('Authorization', `Bearer ${wrong}`).set('X-Request-Id', 'r-401').send(envelope('u'));
    const access = s.logs.filter((l) => l.msg === 'request');
    expect(access.map((l) => [l.requestId, l.status, l.route])).toEqual([
      ['r-503', 503, '/v1/ingest/log'],
      ['r-403', 403, '/v1/ingest/log'],
      ['r-401', 401, '/v1/ingest/log'],
    ]);
    // The 503 also logs the produce error with its request id, under `err`.
    expect(s.logs.find((l) => l.msg === 'produce failed; answering 503')).toMatchObject({ requestId: 'r-503', err: expect.any(Object) });
    const all = JSON.stringify(s.logs);
    for (const secret of [SDK, API, wrong]) expect(all).not.toContain(secret);
    await s.close();
  });
});
