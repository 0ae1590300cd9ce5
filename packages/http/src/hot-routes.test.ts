import { Writable } from 'node:stream';
import request from 'supertest';
import { ApiError, createLogger } from '@evp/core';
import type { Request } from 'express';
import { createHttpApp } from './app';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, cb) {
      for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { lines, logger: createLogger('t', 'info', sink) };
}

/** Which dispatch served the request: the router gives req.route an Express Route (with a stack). */
const dispatch = (req: Request) => ('stack' in (req.route as object) ? 'router' : 'hot');

describe('hot routes', () => {
  it('serve the exact method and URL without the router, with the common middleware first', async () => {
    const { app, seen, lines } = makeApp();
    const res = await request(app).post('/ingest').set('X-Request-Id', 'r-7').send({});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ via: 'hot', route: '/ingest', express: false });
    expect(res.headers['x-request-id']).toBe('r-7');
    expect(seen).toEqual(['before POST /ingest']);
    expect(lines).toEqual([expect.objectContaining({ msg: 'request', requestId: 'r-7', route: '/ingest', status: 200, method: 'POST' })]);
  });

  it('leave any other spelling of the URL to the router, with the same handlers', async () => {
    const { app } = makeApp();
    for (const url of ['/ingest?x=1', '/ingest/', '/INGEST']) {
      const res = await request(app).post(url).send({});
      expect([url, res.status, res.body]).toEqual([url, 200, { via: 'router', route: '/ingest', express: true }]);
    }
    expect((await request(app).get('/ingest')).status).toBe(404);
  });

  it.each([
    ['next(err)', 'next', 429, 'rate_limited', '7'],
    ['a thrown ApiError', 'throw', 401, 'auth_missing', undefined],
    ['a rejected promise', 'crash', 500, 'internal', undefined],
    ['no answer at all', 'pass', 404, 'not_found', undefined],
  ])('answer %s with the JSON error shape, exactly as the router does', async (_what, fail, status, code, retryAfter) => {
    const { app, metrics } = makeApp();
    const hot = await request(app).post('/ingest').set('X-Fail', fail).set('X-Request-Id', 'r-1').send({});
    const routed = await request(app).post('/ingest?via=router').set('X-Fail', fail).set('X-Request-Id', 'r-1').send({});
    expect(hot.status).toBe(status);
    expect(hot.body).toMatchObject({ error: { code } });
    expect(hot.headers['retry-after']).toBe(retryAfter);
    expect({ status: hot.status, body: hot.body }).toEqual({ status: routed.status, body: routed.body });
    const counted = (await metrics.requests.get()).values.map((v) => [v.labels.route, v.labels.status, v.value]);
    expect(counted).toEqual([['/ingest', String(status), 2]]);
  });
});

function makeApp() {
  const { lines, logger } = capture();
  const seen: string[] = [];
  const { app, metrics } = createHttpApp({
    logger,
    metricsPrefix: `hot${Math.random().toString(36).slice(2, 8)}`,
    accessLog: true,
    before: [(req, _res, next) => (seen.push(`before ${req.method} ${req.url}`), next())],
    routes: () => [
      {
        method: 'POST',
        path: '/ingest',
        handlers: [
          (req, _res, next) => (req.headers['x-fail'] === 'next' ? next(new ApiError('rate_limited', { retryAfterSeconds: 7 })) : next()),
          async (req, res, next) => {
            if (req.headers['x-fail'] === 'throw') throw new ApiError('auth_missing', { path: 'headers.authorization' });
            if (req.headers['x-fail'] === 'crash') throw new Error('boom');
            if (req.headers['x-fail'] === 'pass') return next();
            // Node's own response API: hot handlers do not get Express's helpers (see HotRoute).
            const express = typeof (res as { json?: unknown }).json === 'function';
            res
              .writeHead(200, { 'Content-Type': 'application/json' })
              .end(JSON.stringify({ via: dispatch(req), route: (req.route as { path: string }).path, express }));
          },
        ],
      },
    ],
  });
  return { app, metrics, lines, seen };
}
