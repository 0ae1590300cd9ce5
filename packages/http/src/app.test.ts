import { Agent, request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import request from 'supertest';
import { createLogger } from '@evp/core';
import { createHttpApp } from './app';
import { closeServer, listen } from './server';

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

describe('createHttpApp', () => {
  it('answers 503 from /readyz when the readiness check itself throws', async () => {
    const { logger } = capture();
    const { app } = createHttpApp({ logger, metricsPrefix: 't1', readiness: async () => Promise.reject(new Error('boom')), routes: () => undefined });
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ ready: false, problems: ['readiness check failed: boom'] });
  });

  it('writes an access log line with the request id and route, never headers, only when asked', async () => {
    for (const accessLog of [true, false]) {
      const { lines, logger } = capture();
      const { app } = createHttpApp({ logger, metricsPrefix: 't2', accessLog, routes: (r) => void r.get('/x/:id', (_q, s) => void s.json({})) });
      await request(app).get('/x/1').set('Authorization', 'Bearer secret-secret-secret').set('X-Request-Id', 'r-1');
      if (!accessLog) expect(lines).toEqual([]);
      else {
        expect(lines).toEqual([expect.objectContaining({ msg: 'request', requestId: 'r-1', route: '/x/:id', status: 200, method: 'GET' })]);
        expect(JSON.stringify(lines)).not.toContain('secret-secret');
      }
    }
  });
});

describe('closeServer', () => {
  it('waits for an in-flight request, closes idle keep-alive connections, and refuses new ones', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { app } = createHttpApp({
      logger: capture().logger,
      metricsPrefix: 't3',
      routes: (r) => void r.get('/slow', async (_q, s) => (await gate, void s.json({ ok: true }))),
    });
    const { server, port } = await listen(app, 0, '127.0.0.1');
    const agent = new Agent({ keepAlive: true });
    const get = (path: string) =>
      new Promise<number>((ok, fail) =>
        httpRequest({ port, host: '127.0.0.1', path, agent }, (res) => (res.resume(), res.on('end', () => ok(res.statusCode ?? 0))))
          .on('error', fail)
          .end(),
      );
    expect(await get('/healthz')).toBe(200); // leaves an idle keep-alive connection
    const slow = get('/slow');
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    const closed = closeServer(server, { graceMs: 10_000 });
    await expect(get('/healthz')).rejects.toBeDefined();
    release();
    expect(await slow).toBe(200);
    await closed;
    // Closed promptly once idle, not after the keep-alive timeout or the grace period.
    expect(Date.now() - t0).toBeLessThan(2_000);
    agent.destroy();
  });
});
