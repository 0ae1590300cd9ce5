import request from 'supertest';
import { createInProcessBus } from '@evp/embedded';
import { InfraError } from '@evp/core';
import { SDK, envelope, harness } from '../test-fixtures';
import { createInMemoryRateLimiter } from './in-memory';
import type { RateLimiter } from './port';

const post = (app: Parameters<typeof request>[0], path = '/v1/ingest/log') => request(app).post(path).set('Authorization', `Bearer ${SDK}`);

describe('per-key rate limit', () => {
  it('refuses every ingest route once the key used its window: 429 with Retry-After, or a closed connection for status-blind clients', async () => {
    const s = await harness(createInProcessBus(), { deps: { rateLimiter: createInMemoryRateLimiter({ limit: 2, windowMs: 30_000 }) } });
    expect((await post(s.app).send(envelope('u'))).status).toBe(200);
    expect((await post(s.app, '/v1/ingest/catalog/site').send([{ id: 's' }])).status).toBe(200);
    const res = await post(s.app, '/v1/ingest/log').send(envelope('u'));
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('rate_limited');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(29);
    // The Kenkai path and the older iOS catalog path: their clients delete a batch on any answer.
    for (const path of ['/v1/ingest/events', '/v1/ingest/catalog/site']) {
      await expect(post(s.app, path).send(envelope('u'))).rejects.toThrow(/socket hang up|ECONNRESET/);
    }
    expect((await request(s.app).get('/metrics')).text).toContain('gateway_rate_limited_total 3');
    await s.close();
  });

  it('fails open when the limiter store is down: 200, counted, logged once', async () => {
    const broken: RateLimiter = {
      take: async () => {
        throw new InfraError('redis', 'connection refused', { retriable: true });
      },
      close: async () => undefined,
    };
    const s = await harness(createInProcessBus(), { deps: { rateLimiter: broken } });
    expect((await post(s.app).send(envelope('u'))).status).toBe(200);
    expect((await post(s.app).send(envelope('u'))).status).toBe(200);
    expect((await request(s.app).get('/metrics')).text).toContain('gateway_rate_limit_errors_total 2');
    expect(s.logs.filter((l) => l.msg === 'rate limiter unavailable; allowing requests (fail-open)')).toHaveLength(1);
    await s.close();
  });
});
