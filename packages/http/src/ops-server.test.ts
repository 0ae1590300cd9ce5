import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { consumerProblems, subscriptionHealth } from '@evp/core';
import { serveOps } from './ops-server';

describe('serveOps', () => {
  it('answers /healthz, /readyz (503 once a consumer is dead), /metrics and 404s in the JSON error shape', async () => {
    const consumer = subscriptionHealth();
    const { server, port } = await serveOps({
      port: 0,
      host: '127.0.0.1',
      metrics: new Registry(),
      readiness: async () => consumerProblems({ raw: consumer }),
    });
    expect((server.address() as AddressInfo).port).toBe(port);
    const get = async (path: string) => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      return [res.status, path === '/metrics' ? await res.text() : await res.json()];
    };
    try {
      expect(await get('/healthz')).toEqual([200, { status: 'ok' }]);
      expect(await get('/readyz')).toEqual([200, { ready: true, problems: [] }]);
      consumer.dead(new Error('group coordinator said no'));
      expect(await get('/readyz')).toEqual([503, { ready: false, problems: ['consumer raw is dead: group coordinator said no'] }]);
      // Liveness stays up: the process answers; readiness (and the exit that follows) is the signal.
      expect(await get('/healthz')).toEqual([200, { status: 'ok' }]);
      expect(await get('/metrics')).toEqual([200, '\n']);
      expect(await get('/nope')).toEqual([404, { error: { code: 'not_found', message: 'No route GET /nope.' } }]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('calls onDead once, on the first death only', () => {
    const deaths: string[] = [];
    const h = subscriptionHealth((e) => deaths.push(e.message));
    h.dead(new Error('first'));
    h.dead(new Error('second'));
    h.stopped();
    expect(h.health()).toEqual({ state: 'dead', error: 'first' });
    expect(deaths).toEqual(['first']);
  });
});
