import type { Router } from 'express';
import { ApiError, topics, type BusProducer, type CatalogKind, type KeyRing, type Logger } from '@evp/core';
import { createHttpApp, requireKey, type HotRoute, type HttpMetrics } from '@evp/http';
import { catalogKind, countCatalogRecords } from './catalog';
import { cors } from './cors';
import { sliceEnvelopes } from './envelopes';
import { ingestHandler } from './ingest';
import { createIngestMetrics } from './metrics';
import { openApiDocument } from './openapi';
import { failOpen, rateLimit, type RateLimiter } from './rate-limit';

export interface GatewayLimits {
  maxBodyBytes: number;
  maxEventsPerRequest: number;
  /** Records per catalog request; defaults to maxEventsPerRequest. */
  maxCatalogRecordsPerRequest?: number;
  /** Envelopes per log request; default DEFAULT_MAX_ENVELOPES_PER_REQUEST (1,000). */
  maxEnvelopesPerRequest?: number;
  /** Seconds a client should wait after a 503. */
  retryAfterSeconds: number;
}

export interface GatewayDeps {
  producer: BusProducer;
  keys: KeyRing;
  logger: Logger;
  limits: GatewayLimits;
  corsOrigins: string[];
  /** Per-key rate limit; none when absent (embedded mode). Wrapped fail-open here. */
  rateLimiter?: RateLimiter;
  readiness?: () => Promise<string[]>;
  now?: () => number;
  /** Where raw uploads go; ingest.raw unless a benchmark points it at its own topic. */
  rawTopic?: string;
}

/** The ingest API: thin, no per-event validation, and never a 2xx before Kafka has the data. */
export function createGatewayApp(deps: GatewayDeps) {
  const now = deps.now ?? Date.now;
  return createHttpApp({
    logger: deps.logger,
    metricsPrefix: 'gateway',
    readiness: deps.readiness,
    accessLog: true,
    before: [cors(deps.corsOrigins)],
    routes: (router: Router, httpMetrics: HttpMetrics): HotRoute[] => {
      const metrics = createIngestMetrics(httpMetrics);
      const limited = deps.rateLimiter
        ? [rateLimit(failOpen(deps.rateLimiter, { logger: deps.logger, errors: metrics.rateLimitErrors }), metrics.rateLimited)]
        : [];
      const guards = [requireKey(deps.keys, 'sdk'), ...limited];
      // Server-side imports (the synthetic data generator) authenticate with the app's API key.
      const importGuards = [requireKey(deps.keys, 'api'), ...limited];
      const ingest = {
        producer: deps.producer,
        logger: deps.logger,
        metrics,
        maxBodyBytes: deps.limits.maxBodyBytes,
        retryAfterSeconds: deps.limits.retryAfterSeconds,
        now,
        rawTopic: deps.rawTopic ?? topics.raw,
      };

      const ingestLog = ingestHandler(ingest, (_req, body, raw, appId) => {
        const slices = sliceEnvelopes(body, raw.text, deps.limits.maxEnvelopesPerRequest);
        const events = slices.reduce((n, s) => n + s.events, 0);
        const max = deps.limits.maxEventsPerRequest;
        if (events > max) {
          throw new ApiError('too_many_events', {
            message: `The request holds ${events} events; the limit is ${max}.`,
            path: '$',
            details: { events, max_events: max },
          });
        }
        // One raw message per envelope (per user of a flat body), keyed by user: one user's events
        // stay in order. A single envelope travels as the very bytes received (no re-encoding).
        const messages = slices.map((s) => ({ key: `${appId}:${s.userId}`, value: s.asReceived ? raw.bytes : Buffer.from(s.json) }));
        return { payloadKind: 'log', metricKind: 'log', accepted: events, messages };
      });

      const ingestCatalog = ingestHandler(ingest, (req, body, raw, appId) => {
        const kind = req.catalogKind as CatalogKind;
        const records = countCatalogRecords(body, deps.limits.maxCatalogRecordsPerRequest ?? deps.limits.maxEventsPerRequest);
        // One message per request: the validator splits it; the body's bytes travel unchanged.
        return { payloadKind: `catalog:${kind}`, metricKind: 'catalog', accepted: records, messages: [{ key: `${appId}:catalog:${kind}`, value: raw.bytes }] };
      });

      // Auth first (the kind list is for key holders), then the kind, before the body is read.
      router.post('/v1/ingest/catalog/:kind', ...guards, catalogKind, ingestCatalog);
      // Server-side import, on the very paths the generator posts to (no /v1; docs/api.md): the same
      // handlers, limits, metrics and answers as the SDK routes, with an API key.
      router.post('/data/ingest/log', ...importGuards, ingestLog);
      router.post('/data/ingest/catalog/:kind', ...importGuards, catalogKind, ingestCatalog);
      const doc = openApiDocument();
      router.get('/openapi.json', (_req, res) => void res.json(doc));
      // What SDKs call all day: dispatched without the router (packages/http/src/hot-routes.ts).
      return [
        { method: 'POST', path: '/v1/ingest/log', handlers: [...guards, ingestLog] },
        { method: 'POST', path: '/v1/ingest/events', handlers: [...guards, ingestLog] },
      ];
    },
  });
}
