import express, { type Express, type Router } from 'express';
import type { Logger } from '@evp/core';
import { errorHandler, notFound } from './errors';
import { installHotRoutes, type HotRoute } from './hot-routes';
import { createHttpMetrics, observeRequests, type HttpMetrics } from './metrics';
import { requestId } from './request-id';

export interface HttpAppOptions {
  logger: Logger;
  /** Prometheus metric name prefix, e.g. `gateway`. */
  metricsPrefix: string;
  metrics?: HttpMetrics;
  /** Returns problems that make the service not ready; empty when ready. */
  readiness?: () => Promise<string[]>;
  /** Registers the routes; hot routes it returns are registered too and also skip the router (hot-routes.ts). */
  routes: (router: Router, metrics: HttpMetrics) => void | HotRoute[];
  /** Logs one line per finished request (request id, route, status, duration; never headers). Default off. */
  accessLog?: boolean;
  /** Middleware that must run before routes (e.g. CORS). */
  before?: express.RequestHandler[];
}

/** The common shell of every HTTP service: request ids, metrics, health, JSON errors. */
export function createHttpApp(opts: HttpAppOptions): { app: Express; metrics: HttpMetrics } {
  const app = express();
  app.disable('x-powered-by');
  // No ETags: every answer is a fresh JSON body (acknowledgements, one-off pulls) that no client
  // revalidates, and Express would hash each one.
  app.set('etag', false);
  const metrics = opts.metrics ?? createHttpMetrics(opts.metricsPrefix);
  const common: express.RequestHandler[] = [requestId, observeRequests(metrics, opts.accessLog ? opts.logger : undefined), ...(opts.before ?? [])];
  for (const mw of common) app.use(mw);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    // A readiness check that throws is itself a reason not to be ready.
    const problems = opts.readiness ? await opts.readiness().catch((err: unknown) => [`readiness check failed: ${(err as Error).message}`]) : [];
    res.status(problems.length === 0 ? 200 : 503).json({ ready: problems.length === 0, problems });
  });
  app.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  });

  const router = express.Router();
  const hot = opts.routes(router, metrics) ?? [];
  for (const r of hot) router[r.method === 'GET' ? 'get' : 'post'](r.path, ...r.handlers);
  app.use(router);
  app.use(notFound);
  const onError = errorHandler(opts.logger);
  app.use(onError);
  installHotRoutes(app, hot, { before: common, last: notFound, onError: (err, req, res) => onError(err, req, res, () => undefined) });
  return { app, metrics };
}
