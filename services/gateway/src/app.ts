import type { Router } from 'express';
import { CRASH_PAYLOAD_KIND, DIMENSIONS_PAYLOAD_KIND, LOG_PAYLOAD_KIND, catalogPayloadKind, envelopeKey } from '@evp/contract';
import { ApiError, topics, type BusProducer, type KeyRing, type Logger, type SuppressionSet } from '@evp/core';
import { USER_TOKEN_HEADER, browserCors, createHttpApp, requireKey, userTokens, type HotRoute, type HttpMetrics, type UserTokens } from '@evp/http';
import { catalogKind, countCatalogRecords, countDimensionRecords } from './catalog';
import { logAnswerStyle, statusBlindPath } from './client-answers';
import { describeCrashUpload } from './crash';
import { sliceEnvelopes } from './envelopes';
import { ingestHandler } from './ingest';
import { createIngestMetrics } from './metrics';
import { failOpen, rateLimit, type RateLimiter } from './rate-limit';
import { sdkScriptHandler, type ScriptFiles } from './sdk-script';

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
  corsOrigins: readonly string[];
  /** Per-key rate limit; none when absent (embedded mode). Wrapped fail-open here. */
  rateLimiter?: RateLimiter;
  readiness?: () => Promise<string[]>;
  /** The request series' registry (main.ts registers the keys' reload and usage series in it too). */
  metrics?: HttpMetrics;
  now?: () => number;
  /** Where raw uploads go; ingest.raw unless a benchmark points it at its own topic. */
  rawTopic?: string;
  /** The web library's script build, served at GET /sdk/{file} (sdk-script.ts); absent, those answer 503 not_enabled. */
  webSdk?: ScriptFiles;
  /** Suppressed (erased) users: their envelopes are answered 200 and dropped, never stored. Absent: none is. */
  suppressions?: SuppressionSet;
  /** The user token checks; default: the app's own, counted in its registry. One process of several apps shares one (one series). */
  userTokens?: UserTokens;
}

/** The ingest API: thin, no per-event validation, and never a 2xx before Kafka has the data. */
export function createGatewayApp(deps: GatewayDeps) {
  const now = deps.now ?? Date.now;
  return createHttpApp({
    logger: deps.logger,
    metricsPrefix: 'gateway',
    metrics: deps.metrics,
    readiness: deps.readiness,
    accessLog: true,
    // Browser SDKs upload with the SDK key; the server-side import paths (`/data/…`, API key) get no
    // CORS and no preflight answer: an API key must never be used from a browser.
    before: [
      browserCors({
        allowedOrigins: deps.corsOrigins,
        allowHeaders: ['Authorization', 'Content-Type', 'Content-Encoding', 'X-Request-Id', 'X-EVP-SDK', USER_TOKEN_HEADER],
        answerPreflight: true,
        // /sdk/ (the script build) answers CORS for any origin itself (sdk-script.ts).
        skip: (url) => url.startsWith('/data/') || url.startsWith('/sdk/'),
      }),
    ],
    routes: (router: Router, httpMetrics: HttpMetrics): HotRoute[] => {
      const metrics = createIngestMetrics(httpMetrics);
      const limited = deps.rateLimiter
        ? [rateLimit(failOpen(deps.rateLimiter, { logger: deps.logger, errors: metrics.rateLimitErrors }), metrics.rateLimited, statusBlindPath)]
        : [];
      // An SDK key's uploads carry the user's token under the app's policy (docs/keys.md, "User
      // tokens"): read after the key (it names the app), before the body.
      const tokens = deps.userTokens ?? userTokens(deps.keys, httpMetrics.registry, now);
      const guards = [requireKey(deps.keys, 'sdk'), ...limited, tokens.read];
      // The routes a browser library's sendBeacon posts to, which cannot set headers: the SDK key may
      // come as ?sdk_key= (docs/api.md, "The SDK key in the URL"), the user token as ?user_token=.
      const beaconGuards = [requireKey(deps.keys, 'sdk', { sdkKeyInQuery: true }), ...limited, tokens.read];
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
        tokens,
        ...(deps.suppressions ? { suppressions: deps.suppressions } : {}),
      };

      const ingestLog = ingestHandler(ingest, (req, body, raw, appId) => {
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
        const messages = slices.map((s) => ({ key: envelopeKey(appId, s.userId), value: s.asReceived ? raw.bytes : Buffer.from(s.json) }));
        const answer = logAnswerStyle(
          req,
          slices.every((s) => s.earlier),
        );
        return { payloadKind: LOG_PAYLOAD_KIND, metricKind: 'log', accepted: events, messages, answer, userIds: slices.map((s) => s.userId) };
      });

      const ingestCatalog = ingestHandler(ingest, (req, body, raw, appId) => {
        const kind = req.catalogKind as string;
        const records = countCatalogRecords(body, deps.limits.maxCatalogRecordsPerRequest ?? deps.limits.maxEventsPerRequest);
        // One message per request: the validator splits it; the body's bytes travel unchanged. The key
        // names the kind; the payload kind names it as the client did (`chwsite`), since an alias can
        // mean more than its kind (defaults its records lack), which the validator applies.
        const sent = String(req.params.kind);
        return {
          payloadKind: catalogPayloadKind(sent),
          metricKind: 'catalog',
          accepted: records,
          messages: [{ key: `${appId}:catalog:${kind}`, value: raw.bytes }],
          answer: { emptySuccess: false, closeOnRetriable: statusBlindPath(req) },
          forwardClient: true,
        };
      });

      // Kenkai's catalog upload: records of several kinds in one `{data: [...]}` body. One message per
      // request, the body's bytes unchanged; the validator splits it by each record's `type`.
      const ingestDimensions = ingestHandler(ingest, (_req, body, raw, appId) => {
        const records = countDimensionRecords(body, deps.limits.maxCatalogRecordsPerRequest ?? deps.limits.maxEventsPerRequest);
        return {
          payloadKind: DIMENSIONS_PAYLOAD_KIND,
          metricKind: 'catalog',
          accepted: records,
          messages: [{ key: `${appId}:catalog:dimensions`, value: raw.bytes }],
          // Only the Kenkai client posts here, and it reads no status.
          answer: { emptySuccess: false, closeOnRetriable: true },
          forwardClient: true,
        };
      });

      // causalfoundry/ios-sdk 0.4.3–1.2.3 upload the exceptions they met here (not in the spec); any
      // HTTP answer makes them delete the items, so they are stored like any upload before the 200,
      // and a retriable failure closes the connection (client-answers.ts).
      const ingestCrash = ingestHandler(ingest, (req, body, raw, appId) => {
        const crash = describeCrashUpload(body, deps.limits.maxEventsPerRequest);
        return {
          payloadKind: CRASH_PAYLOAD_KIND,
          metricKind: 'crash',
          accepted: crash.items,
          messages: [{ key: envelopeKey(appId, crash.userId), value: raw.bytes }],
          answer: { emptySuccess: false, closeOnRetriable: statusBlindPath(req) },
          userIds: [crash.userId],
        };
      });

      // The web library's script build: public, no key (a page's <script src> sends none).
      const noScript: ScriptFiles = () => Promise.reject(new Error('no script build given to this gateway (webSdk)'));
      router.get('/sdk/:file', sdkScriptHandler(deps.webSdk ?? noScript, deps.logger));
      // Auth first (the kind list is for key holders), then the kind, before the body is read.
      router.post('/v1/ingest/catalog/:kind', ...beaconGuards, catalogKind, ingestCatalog);
      router.post('/v1/ingest/dimensions', ...guards, ingestDimensions);
      router.post('/v1/ingest/sdk/crash', ...guards, ingestCrash);
      // Server-side import, on the very paths the generator posts to (no /v1; docs/api.md): the same
      // handlers, limits, metrics and answers as the SDK routes, with an API key.
      router.post('/data/ingest/log', ...importGuards, ingestLog);
      router.post('/data/ingest/catalog/:kind', ...importGuards, catalogKind, ingestCatalog);
      // What SDKs call all day: dispatched without the router (packages/http/src/hot-routes.ts).
      return [
        { method: 'POST', path: '/v1/ingest/log', handlers: [...beaconGuards, ingestLog] },
        { method: 'POST', path: '/v1/ingest/events', handlers: [...beaconGuards, ingestLog] },
      ];
    },
  });
}
