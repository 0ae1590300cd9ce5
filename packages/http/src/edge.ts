import type { RequestListener } from 'node:http';
import { Registry } from 'prom-client';
import type { Logger } from '@evp/core';
import { createHttpApp } from './app';
import { createHttpMetrics } from './metrics';
import { serviceForPath, type PublicService } from './public-routes';

export interface EdgeOptions {
  logger: Logger;
  /** Each service's whole app (an Express app is a request listener), by the route table's names. */
  services: Record<PublicService, RequestListener>;
  /** Every part's problems: the one /readyz is ready only when all parts are. */
  readiness: () => Promise<string[]>;
  /** Every part's metrics registry, merged into the one /metrics (names must not collide). */
  registries: Registry[];
  /** The OpenAPI document of every public route (dev/src/openapi.ts), served at GET /openapi.json. */
  openApi: object;
}

/**
 * One base URL for an in-process platform (`npm start`): requests whose path the route table gives
 * to a service go to that service's app untouched (Node's own request and response, so the
 * gateway's hot routes keep their fast path); EDGE_PATHS (/healthz, /readyz, /metrics, /openapi.json)
 * and unknown paths are the edge's own, with the usual request id and JSON 404. docker-compose does
 * the same with nginx.
 */
export function createEdge(opts: EdgeOptions): RequestListener {
  const own = createHttpMetrics('edge');
  // Merged once: every series the parts have is registered when their apps and consumers are built.
  const registry = Registry.merge([own.registry, ...opts.registries]);
  const { app } = createHttpApp({
    logger: opts.logger,
    metricsPrefix: 'edge',
    metrics: { ...own, registry },
    readiness: opts.readiness,
    routes: (router) => {
      router.get('/openapi.json', (_req, res) => void res.json(opts.openApi));
    },
  });
  return (req, res) => {
    const service = serviceForPath(req.url ?? '/');
    (service ? opts.services[service] : app)(req, res);
  };
}
