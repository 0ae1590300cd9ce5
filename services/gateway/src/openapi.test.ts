import request from 'supertest';
import type { Express } from 'express';
import { commonSchemas, opsPaths } from '@evp/http';
import { createInProcessBus } from '@evp/embedded';
import { describedRoutes, expressRoutes, undescribedAnswers, type SeenAnswer } from '@evp/testkit';
import { API, SDK, envelope, harness } from './test-fixtures';
import { gatewayOpenApi } from './openapi';
import { createInMemoryRateLimiter } from './rate-limit';

const fragment = gatewayOpenApi();
const doc = { paths: { ...fragment.paths, ...opsPaths }, schemas: { ...commonSchemas, ...fragment.schemas } };

describe("the gateway's OpenAPI fragment", () => {
  // Closed after the tests, also when an expectation failed (an open harness keeps jest running).
  const harnesses: Awaited<ReturnType<typeof harness>>[] = [];
  afterAll(async () => {
    await Promise.all(harnesses.map((h) => h.close()));
  });

  it('describes every route the app has, and no other (CORS preflights are answered before routing)', async () => {
    const s = await harness(createInProcessBus());
    harnesses.push(s);
    expect(expressRoutes(s.app)).toEqual(describedRoutes(doc.paths, ['options']));
  });

  it('describes every status the app answers on each route', async () => {
    const make = async (opts: Parameters<typeof harness>[1]) => {
      const h = await harness(createInProcessBus(), opts);
      harnesses.push(h);
      return h.app;
    };
    const down = await make({ closedProducer: true, deps: { readiness: async () => ['kafka unreachable'] } });
    const up = await make({ deps: { readiness: async () => [] } });
    const seen: SeenAnswer[] = [];
    // Paths only status-blind clients call get a closed connection instead of a 429 or 503
    // (client-answers.ts): no HTTP status to describe.
    const closed: [string, string][] = [];
    const hit = async (app: Express, method: 'post' | 'get' | 'options', path: string, template: string, set: (t: request.Test) => request.Test = (t) => t) => {
      try {
        const res = await set(request(app)[method](path));
        seen.push({ template, method, status: res.status, contentType: res.headers['content-type'], body: res.body as unknown });
      } catch (err) {
        if (!/socket hang up|ECONNRESET/.test(String(err))) throw err;
        closed.push([path, method]);
      }
    };
    const auth = (t: request.Test) => t.set('Authorization', `Bearer ${SDK}`);
    const routes = [
      ['/v1/ingest/log', '/v1/ingest/log', envelope('u')],
      ['/v1/ingest/events', '/v1/ingest/events', envelope('u')],
      ['/v1/ingest/catalog/site', '/v1/ingest/catalog/{kind}', [{ id: 's' }]],
      ['/v1/ingest/dimensions', '/v1/ingest/dimensions', { data: [{ id: 'u', type: 'user', kv: { timezone: 'Z' } }] }],
      ['/v1/ingest/sdk/crash', '/v1/ingest/sdk/crash', { u_id: 'u', data: [{ title: 't', ts: '2025-03-17T12:05:11.482+03:00' }] }],
    ] as const;
    for (const [path, template, good] of routes) {
      const app = await make({ deps: { rateLimiter: createInMemoryRateLimiter({ limit: 5, windowMs: 60_000 }) } });
      const tooMany = JSON.stringify(Array.isArray(good) ? Array(5).fill(good[0]) : Array(5).fill(good));
      await hit(app, 'options', path, template);
      await hit(app, 'post', path, template, (t) => auth(t).send(good));
      await hit(app, 'post', path, template, (t) => auth(t).set('Content-Type', 'application/json').send('{'));
      await hit(app, 'post', path, template, (t) => t.send(good));
      await hit(app, 'post', path, template, (t) => t.set('Authorization', `Bearer ${API}`).send(good));
      await hit(app, 'post', path, template, (t) => auth(t).set('Content-Type', 'application/json').send(tooMany));
      await hit(app, 'post', path, template, (t) => auth(t).set('Content-Type', 'application/xml').send('<a/>'));
      for (let i = 0; i < 2; i++) await hit(app, 'post', path, template, (t) => auth(t).send(good));
      await hit(down, 'post', path, template, (t) => auth(t).send(good));
    }
    // The server-side import routes: an API key is the right one, an SDK key the wrong one.
    const importer = (t: request.Test) => t.set('Authorization', `Bearer ${API}`);
    const flat = { data: [{ u_id: 'u', d_id: 'd', os: 'android', ol: true, ts: '2025-03-04T09:12:45.381204Z', type: 'identify', block: 'core', props: {} }] };
    for (const [path, template, good] of [
      ['/data/ingest/log', '/data/ingest/log', flat],
      ['/data/ingest/catalog/site', '/data/ingest/catalog/{kind}', [{ id: 's' }]],
    ] as const) {
      const app = await make({ deps: { rateLimiter: createInMemoryRateLimiter({ limit: 4, windowMs: 60_000 }) } });
      const tooMany = JSON.stringify('data' in good ? { data: Array(5).fill(good.data[0]) } : Array(5).fill(good[0]));
      await hit(app, 'post', path, template, (t) => importer(t).send(good));
      await hit(app, 'post', path, template, (t) => importer(t).set('Content-Type', 'application/json').send('{'));
      await hit(app, 'post', path, template, (t) => t.send(good));
      await hit(app, 'post', path, template, (t) => t.set('Authorization', `Bearer ${SDK}`).send(good));
      await hit(app, 'post', path, template, (t) => importer(t).set('Content-Type', 'application/json').send(tooMany));
      await hit(app, 'post', path, template, (t) => importer(t).set('Content-Type', 'application/xml').send('<a/>'));
      for (let i = 0; i < 2; i++) await hit(app, 'post', path, template, (t) => importer(t).send(good));
      await hit(down, 'post', path, template, (t) => importer(t).send(good));
    }
    await hit(up, 'post', '/data/ingest/catalog/No-pe', '/data/ingest/catalog/{kind}', (t) => importer(t).send([{}]));
    await hit(up, 'post', '/v1/ingest/catalog/No-pe', '/v1/ingest/catalog/{kind}', (t) => auth(t).send([{}]));
    await hit(up, 'post', '/v1/ingest/catalog/game_item', '/v1/ingest/catalog/{kind}', (t) => auth(t).send([{ id: 'sword' }]));
    for (const app of [up, down]) for (const p of ['/healthz', '/readyz', '/metrics']) await hit(app, 'get', p, p);

    expect(undescribedAnswers(doc, seen)).toEqual([]);
    expect(closed).toEqual([
      ['/v1/ingest/events', 'post'],
      ['/v1/ingest/events', 'post'],
      ['/v1/ingest/catalog/site', 'post'],
      ['/v1/ingest/catalog/site', 'post'],
      ['/v1/ingest/dimensions', 'post'],
      ['/v1/ingest/dimensions', 'post'],
      ['/v1/ingest/sdk/crash', 'post'],
      ['/v1/ingest/sdk/crash', 'post'],
    ]);
    // The scenarios above really produced each status (so the check is not vacuous).
    expect(new Set(seen.map((a) => a.status))).toEqual(new Set([200, 204, 400, 401, 403, 404, 413, 415, 429, 503]));
  });
});
