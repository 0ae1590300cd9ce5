import type { NextFunction, Request, Response } from 'express';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from '@evp/core';

/** One metrics registry per app instance (no global default), so tests and embedded mode don't collide. */
export interface HttpMetrics {
  registry: Registry;
  requests: Counter<'route' | 'method' | 'status'>;
  latency: Histogram<'route' | 'method'>;
}

export function createHttpMetrics(prefix: string, opts: { defaultMetrics?: boolean } = {}): HttpMetrics {
  const registry = new Registry();
  if (opts.defaultMetrics) collectDefaultMetrics({ register: registry, prefix: `${prefix}_` });
  return {
    registry,
    requests: new Counter({
      name: `${prefix}_http_requests_total`,
      help: 'HTTP requests by route, method and status',
      labelNames: ['route', 'method', 'status'],
      registers: [registry],
    }),
    latency: new Histogram({
      name: `${prefix}_http_request_duration_seconds`,
      help: 'HTTP request latency by route',
      labelNames: ['route', 'method'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
  };
}

/**
 * One 'finish' listener per request records its metrics and, when given a logger, its access-log
 * line: request id, method, route, status, duration and the key's app and id — chosen fields only,
 * never headers, so an Authorization key cannot reach the logs whatever the redaction list says.
 * Label children are looked up once per (route, method, status), not hashed per request.
 */
export function observeRequests(metrics: HttpMetrics, accessLogger?: Logger) {
  const counters = new Map<string, Counter.Internal>();
  const histograms = new Map<string, Histogram.Internal<'route' | 'method'>>();
  return (req: Request, res: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      // The matched route pattern, never the raw path, keeps label cardinality bounded.
      const route = (req.route?.path as string | undefined) ?? 'unmatched';
      const status = res.statusCode;
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const key = `${route} ${req.method}`;
      let latency = histograms.get(key);
      if (!latency) histograms.set(key, (latency = metrics.latency.labels({ route, method: req.method })));
      let count = counters.get(`${key} ${status}`);
      if (!count) counters.set(`${key} ${status}`, (count = metrics.requests.labels({ route, method: req.method, status: String(status) })));
      count.inc();
      latency.observe(seconds);
      accessLogger?.info(
        {
          requestId: req.requestId,
          method: req.method,
          route,
          status,
          ms: seconds * 1000,
          ...(req.grant ? { app: req.grant.appId, keyId: req.grant.keyId } : {}),
        },
        'request',
      );
    });
    next();
  };
}
