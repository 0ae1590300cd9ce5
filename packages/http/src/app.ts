import express, { type Express, type Router } from 'express';
import type { Logger } from '@evp/core';
import { accessLog } from './access-log';
import { errorHandler, notFound } from './errors';
import { createHttpMetrics, observeRequests, type HttpMetrics } from './metrics';
import { requestId } from './request-id';

export interface HttpAppOptions {
  logger: Logger;
  /** Prometheus metric name prefix, e.g. `gateway`. */
  metricsPrefix: string;
  metrics?: HttpMetrics;
  /** Returns problems that make the service not ready; empty when ready. */
  readiness?: () => Promise<string[]>;
  routes: (router: Router, metrics: HttpMetrics) => void;
  /** Logs one line per finished request (request id, route, status, duration; never headers). Default off. */
  accessLog?: boolean;
  /** Middleware that must run before routes (e.g. CORS). */
  before?: express.RequestHandler[];
}

/** The common shell of every HTTP service: request ids, metrics, health, JSON errors. */
export function createHttpApp(opts: HttpAppOptions): { app: Express; metrics: HttpMetrics } {
  const app = express();
  app.disable('x-powered-by');
  const metrics = opts.metrics ?? createHttpMetrics(opts.metricsPrefix);
  app.use(requestId);
  app.use(observeRequests(metrics));
  if (opts.accessLog) app.use(accessLog(opts.logger));
  for (const mw of opts.before ?? []) app.use(mw);

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
  opts.routes(router, metrics);
  app.use(router);
  app.use(notFound);
  app.use(errorHandler(opts.logger));
  return { app, metrics };
}
