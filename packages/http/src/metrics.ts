import type { NextFunction, Request, Response } from 'express';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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

export function observeRequests(metrics: HttpMetrics) {
  return (req: Request, res: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      // The matched route pattern, never the raw path, keeps label cardinality bounded.
      const route = (req.route?.path as string | undefined) ?? 'unmatched';
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      metrics.requests.inc({ route, method: req.method, status: String(res.statusCode) });
      metrics.latency.observe({ route, method: req.method }, seconds);
    });
    next();
  };
}
