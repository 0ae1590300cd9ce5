import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { rawHeaders } from '@evp/contract';
import { createInProcessBus } from '@evp/embedded';
import { waitFor } from '@evp/testkit';
import { API, SDK, envelope, harness, testLimits as limits } from './test-fixtures';

const setup = (opts: { closedProducer?: boolean } = {}) => harness(createInProcessBus(), opts);

const post = (app: Parameters<typeof request>[0], path = '/v1/ingest/log') => request(app).post(path).set('Authorization', `Bearer ${SDK}`);

describe('gateway ingest', () => {
  it('answers 200 with the event count and request id after the raw topic has the upload', async () => {
    const s = await setup();
    const res = await post(s.app).set('X-Request-Id', 'req-abc').send(envelope('u1', 2));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accepted: 2, request_id: 'req-abc' });
    await waitFor(() => s.raw.length === 1);
    const m = s.raw[0]!;
    expect(m.key).toBe('app-1:u1');
    expect(JSON.parse(m.value.toString())).toEqual(envelope('u1', 2));
    expect(m.headers).toEqual({
      [rawHeaders.appId]: 'app-1',
      [rawHeaders.requestId]: 'req-abc',
      [rawHeaders.receivedAt]: '1700000000000',
      [rawHeaders.keyId]: 'k-sdk',
      [rawHeaders.payloadKind]: 'log',
      [rawHeaders.envelopeIndex]: '0',
      [rawHeaders.envelopeCount]: '1',
    });
    await s.close();
  });

  it('splits an array of envelopes into one raw message per envelope, keyed by user', async () => {
    const s = await setup();
    const res = await post(s.app, '/v1/ingest/events').send([envelope('a'), envelope('b', 2)]);
    expect(res.body.accepted).toBe(3);
    await waitFor(() => s.raw.length === 2);
    expect(s.raw.map((m) => m.key).sort()).toEqual(['app-1:a', 'app-1:b']);
    await s.close();
  });

  it('accepts gzip and text/plain (sendBeacon) bodies', async () => {
    const s = await setup();
    const gz = await post(s.app)
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      .serialize((b: Buffer) => b as unknown as string)
      .send(gzipSync(JSON.stringify(envelope('g'))));
    expect(gz.body).toEqual({ accepted: 1, request_id: expect.any(String) });
    const beacon = await post(s.app)
      .set('Content-Type', 'text/plain;charset=UTF-8')
      .send(JSON.stringify(envelope('t')));
    expect(beacon.status).toBe(200);
    await s.close();
  });

  it.each([
    ['no key', (r: request.Test) => r, 401, 'auth_missing', 'headers.authorization'],
    ['unknown key', (r: request.Test) => r.set('Authorization', 'Bearer nope-nope-nope-nope'), 401, 'auth_invalid', 'headers.authorization'],
    ['API key on ingest', (r: request.Test) => r.set('Authorization', `Bearer ${API}`), 403, 'forbidden_role', 'headers.authorization'],
  ])('%s', async (_name, auth, status, code, path) => {
    const s = await setup();
    const res = await auth(request(s.app).post('/v1/ingest/log')).send(envelope('u'));
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ code, path });
    expect(s.raw).toHaveLength(0);
    await s.close();
  });

  it.each([
    ['malformed JSON', 'application/json', '{"id": ', 400, 'invalid_json', '$'],
    ['not an envelope', 'application/json', '{"id":"u"}', 400, 'invalid_envelope', '$.data'],
    ['array with a non-object', 'application/json', `[${JSON.stringify(envelope('a'))}, 3]`, 400, 'invalid_envelope', '$[1]'],
    ['empty array', 'application/json', '[]', 400, 'invalid_envelope', '$'],
    ['wrong content type', 'application/xml', '<a/>', 415, 'unsupported_media_type', 'headers.content-type'],
    ['too many events', 'application/json', JSON.stringify(envelope('u', 4)), 413, 'too_many_events', '$'],
    ['body too large', 'application/json', JSON.stringify({ ...envelope('u'), pad: 'x'.repeat(5000) }), 413, 'payload_too_large', undefined],
  ])('%s', async (_name, type, body, status, code, path) => {
    const s = await setup();
    const res = await post(s.app).set('Content-Type', type).send(body);
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.path).toBe(path);
    expect(s.raw).toHaveLength(0);
    await s.close();
  });

  it('cuts a gzip bomb off at the decompressed limit', async () => {
    const s = await setup();
    const bomb = gzipSync(Buffer.alloc(3 * 1024 * 1024, 0x20));
    // 3 MiB of spaces compress below the byte limit: only the streamed, decompressed count can catch it.
    expect(bomb.length).toBeLessThan(limits.maxBodyBytes);
    const res = await post(s.app)
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      .serialize((b: Buffer) => b as unknown as string)
      .send(bomb);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
    await s.close();
  });

  it('rejects an unknown content encoding with 415', async () => {
    const s = await setup();
    const res = await post(s.app).set('Content-Type', 'application/json').set('Content-Encoding', 'br').send('{}');
    expect(res.status).toBe(415);
    expect(res.body.error).toMatchObject({ code: 'unsupported_encoding', path: 'headers.content-encoding' });
    await s.close();
  });

  it('answers 503 with Retry-After, never 2xx, when the log cannot take the write', async () => {
    const s = await setup({ closedProducer: true });
    const res = await post(s.app).send(envelope('u'));
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.body.error.code).toBe('unavailable');
    await s.close();
  });

  it('answers CORS preflight for allowed origins only', async () => {
    const s = await setup();
    const ok = await request(s.app).options('/v1/ingest/log').set('Origin', 'https://shop.example');
    expect(ok.status).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe('https://shop.example');
    const other = await request(s.app).options('/v1/ingest/log').set('Origin', 'https://evil.example');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    await s.close();
  });

  it('serves health, metrics and a JSON 404', async () => {
    const s = await setup();
    await post(s.app).send(envelope('u', 2));
    expect((await request(s.app).get('/healthz')).body).toEqual({ status: 'ok' });
    const metrics = await request(s.app).get('/metrics');
    expect(metrics.text).toContain('gateway_events_accepted_total{kind="log"} 2');
    const nf = await request(s.app).get('/nope');
    expect(nf.status).toBe(404);
    expect(nf.body.error.code).toBe('not_found');
    await s.close();
  });
});
