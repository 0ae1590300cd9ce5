import request from 'supertest';
import { createInProcessBus } from '@evp/embedded';
import { waitFor } from '@evp/testkit';
import { createInMemoryRateLimiter } from './rate-limit';
import { SDK, envelope, harness } from './test-fixtures';

const setup = (opts: Parameters<typeof harness>[1] = {}) => harness(createInProcessBus(), opts);

/** An earlier-form (spec 2.2) envelope, as the older iOS clients send it. */
const earlier = (user: string) => ({
  s_id: `${user}_1741946400000_1741946460000`,
  u_id: user,
  sdk: 'ios/1.2.3',
  up: 0,
  dn: 2048,
  d_info: { brand: 'Apple', id: 'D-1', model: 'iPhone14,2', os: 'iOS', os_ver: '17.4' },
  app_info: { id: 'com.example.app', min_sdk_version: 15, target_sdk_version: 17, version_code: 45, version_name: '2.3.1', version: '2.3.1 (45)' },
  data: [{ block: 'core', ol: true, ts: '2025-03-14T10:00:00Z', type: 'app', props: { action: 'open', start_time: 900 } }],
});

/** What a client that reads no status sees when the gateway closes the connection instead of answering. */
async function connectionClosed(req: request.Test): Promise<string> {
  try {
    const res = await req;
    return `answered ${res.status}`;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ECONNRESET' || /socket hang up/.test((err as Error).message) ? 'closed' : String(err);
  }
}

describe('answers the real clients can read (client-answers.ts)', () => {
  it('answers an earlier-form upload (older iOS) 200 with an empty body, the count and id in headers', async () => {
    const s = await setup();
    const res = await request(s.app).post('/v1/ingest/log').set('Authorization', `Bearer ${SDK}`).set('X-Request-Id', 'r-old').send(earlier('u1'));
    expect([res.status, res.text, res.headers['content-length'], res.headers['x-events-accepted'], res.headers['x-request-id']]).toEqual([
      200,
      '',
      '0',
      '1',
      'r-old',
    ]);
    await waitFor(() => s.raw.length === 1);
    await s.close();
  });

  it('keeps the JSON answer for the current form and for a body mixing both forms', async () => {
    const s = await setup();
    const current = await request(s.app).post('/v1/ingest/log').set('Authorization', `Bearer ${SDK}`).send(envelope('u1'));
    expect(current.body).toEqual({ accepted: 1, request_id: expect.any(String) });
    const mixed = await request(s.app)
      .post('/v1/ingest/log')
      .set('Authorization', `Bearer ${SDK}`)
      .send([envelope('u1'), earlier('u2')]);
    expect(mixed.body).toEqual({ accepted: 2, request_id: expect.any(String) });
    await s.close();
  });

  it.each([
    ['the Kenkai path', '/v1/ingest/events', envelope('u1')],
    ['an earlier-form upload', '/v1/ingest/log', earlier('u1')],
    ['an older iOS catalog upload', '/v1/ingest/catalog/user', [{ id: 'u1', timezone: '+05:00' }]],
  ])('closes the connection instead of a 503 for %s (the client would delete the batch on any answer)', async (_what, path, body) => {
    const s = await setup({ closedProducer: true });
    expect(await connectionClosed(request(s.app).post(path).set('Authorization', `Bearer ${SDK}`).send(body))).toBe('closed');
    await s.close();
  });

  it('still answers 503 with Retry-After to clients that read statuses', async () => {
    const s = await setup({ closedProducer: true });
    const res = await request(s.app).post('/v1/ingest/log').set('Authorization', `Bearer ${SDK}`).send(envelope('u1'));
    expect([res.status, res.body.error.code]).toEqual([503, 'unavailable']);
    await s.close();
  });

  it('closes instead of answering 429 on the Kenkai path, and answers 429 elsewhere', async () => {
    const s = await setup({ deps: { rateLimiter: createInMemoryRateLimiter({ limit: 1, windowMs: 60_000 }) } });
    const ok = await request(s.app).post('/v1/ingest/events').set('Authorization', `Bearer ${SDK}`).send(envelope('u1'));
    expect(ok.status).toBe(200);
    expect(await connectionClosed(request(s.app).post('/v1/ingest/events').set('Authorization', `Bearer ${SDK}`).send(envelope('u1')))).toBe('closed');
    const limited = await request(s.app).post('/v1/ingest/log').set('Authorization', `Bearer ${SDK}`).send(envelope('u1'));
    expect([limited.status, limited.body.error.code]).toEqual([429, 'rate_limited']);
    await s.close();
  });
});
