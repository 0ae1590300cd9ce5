import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { createInProcessBus } from '@evp/embedded';
import { API, SDK, envelope, harness } from './test-fixtures';
import { createInMemoryRateLimiter } from './rate-limit';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
const file = JSON.parse(readFileSync(join(__dirname, '../../../docs/openapi.json'), 'utf8')) as Doc;

/** Express 5 keeps routes in router stacks (the app's, and nested routers'): every method + path answered. */
type Layer = { route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } };
function routesOf(stack: Layer[]): [string, string][] {
  return stack.flatMap((l): [string, string][] => {
    if (l.route) return Object.keys(l.route.methods).map((m) => [m, l.route!.path]);
    return l.handle?.stack ? routesOf(l.handle.stack) : [];
  });
}
const appRoutes = (app: Express) => routesOf((app as unknown as { router: { stack: Layer[] } }).router.stack);
const templated = (path: string) => path.replace(/:(\w+)/g, '{$1}');

describe('OpenAPI document', () => {
  it('is served at GET /openapi.json and equals docs/openapi.json (rewrite with write-openapi.ts)', async () => {
    const s = await harness(createInProcessBus());
    const res = await request(s.app).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(file);
    expect(res.body.openapi).toBe('3.1.0');
    await s.close();
  });

  it('describes every route the app has, and no other', async () => {
    const s = await harness(createInProcessBus());
    const routes = appRoutes(s.app).map(([m, p]) => `${m} ${templated(p)}`);
    const described = Object.entries(file.paths).flatMap(([p, ops]) =>
      Object.keys(ops)
        .filter((m) => m !== 'options')
        .map((m) => `${m} ${p}`),
    );
    expect(routes.sort()).toEqual(described.sort());
    await s.close();
  });

  it('describes every status the app answers on each route', async () => {
    const harnesses: Awaited<ReturnType<typeof harness>>[] = [];
    const make = async (opts: Parameters<typeof harness>[1]) => {
      const h = await harness(createInProcessBus(), opts);
      harnesses.push(h);
      return h.app;
    };
    const down = await make({ closedProducer: true, deps: { readiness: async () => ['kafka unreachable'] } });
    const up = await make({ deps: { readiness: async () => [] } });
    const seen: [string, string, number][] = [];
    // Paths only status-blind clients call get a closed connection instead of a 429 or 503
    // (client-answers.ts): no HTTP status to describe.
    const closed: [string, string][] = [];
    const hit = async (app: Express, method: 'post' | 'get' | 'options', path: string, template: string, set: (t: request.Test) => request.Test = (t) => t) => {
      try {
        const res = await set(request(app)[method](path));
        seen.push([template, method, res.status]);
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
    await hit(up, 'post', '/data/ingest/catalog/nope', '/data/ingest/catalog/{kind}', (t) => importer(t).send([{}]));
    await hit(up, 'post', '/v1/ingest/catalog/nope', '/v1/ingest/catalog/{kind}', (t) => auth(t).send([{}]));
    for (const app of [up, down]) for (const p of ['/healthz', '/readyz', '/metrics', '/openapi.json']) await hit(app, 'get', p, p);

    const undocumented = seen.filter(([p, m, st]) => !file.paths[p]?.[m]?.responses[String(st)]);
    expect(undocumented).toEqual([]);
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
    expect(new Set(seen.map(([, , st]) => st))).toEqual(new Set([200, 204, 400, 401, 403, 404, 413, 415, 429, 503]));
    await Promise.all(harnesses.map((h) => h.close()));
  });
});
