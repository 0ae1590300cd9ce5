import type { Request, Router } from 'express';
import { ApiError, InfraError, type Analytics, type KeyRing, type Logger } from '@evp/core';
import {
  REQUEST_ID_PATTERN,
  browserCors,
  createAccessLog,
  createHttpApp,
  createInMemoryAccessLogStorage,
  grantOf,
  readRecorder,
  requireKey,
  type AccessLog,
  type HttpMetrics,
} from '@evp/http';
import { inspectDeadLetters, inspectEvents, inspectRejected, parseDeadLetterQuery, parseInspectQuery } from './inspect';
import { requestVerdicts } from './verdicts';
import { segmentRoutes } from './segments';
import { campaignRoutes } from './campaigns';
import { keyRoutes } from './keys';
import { auditRoutes } from './audit';
import { privacyRoutes } from './privacy';
import { consoleRoutes, type ConsoleAssets } from './console';
import { appHealth, MINUTES_DEFAULT, MINUTES_MAX, spanParam } from './health';
import type { SegmentsService } from '../segments';
import type { CampaignsService } from '../campaigns';
import type { PrivacyService } from '../privacy';

export interface SegmenterAppDeps {
  analytics: Analytics;
  keys: KeyRing;
  logger: Logger;
  /** Problems that make the service not ready (its consumer, ClickHouse). */
  readiness?: () => Promise<string[]>;
  metrics?: HttpMetrics;
  /** The segments API; absent, its routes answer 404 (a segmenter run as a sink and inspector only). */
  segments?: SegmentsService;
  /** The campaigns API; absent, its routes answer 404. */
  campaigns?: CampaignsService;
  /** Erasure and export of a person's data; absent, its routes answer 404. */
  privacy?: PrivacyService;
  /** Seconds a client should wait after a 503. Default 2. */
  retryAfterSeconds?: number;
  /** The console's build, chart library and example queries (console/assets.ts); absent, the console's pages (the inspector's too) are not served. */
  console?: ConsoleAssets;
  /**
   * The access log every read of stored data is written to before it is answered (docs/privacy.md,
   * "Access log"); GET /v1/audit/reads lists it. Default: an in-memory log of this app object (tests).
   */
  accessLog?: AccessLog;
  /** Browser origins that may read request verdicts with the SDK key (`*`: any). Default none. */
  corsOrigins?: readonly string[];
}

/** The one route a browser calls here: a web library's debug mode reads its own uploads' verdicts. */
const VERDICTS_PREFIX = '/v1/ingest/requests/';

/**
 * What the segmenter answers over HTTP, all read from ClickHouse and all for the key's app only:
 * the verdicts of a request (SDK or API key: an app may ask what became of its own upload), the
 * inspector API (API key: it shows the app's data), segments, campaigns, keys, and the console's pages.
 */
export function createSegmenterApp(deps: SegmenterAppDeps) {
  const retryAfterSeconds = deps.retryAfterSeconds ?? 2;
  const accessLog = deps.accessLog ?? createAccessLog(createInMemoryAccessLogStorage());
  const recordRead = readRecorder(accessLog, deps.logger, retryAfterSeconds);
  async function guarded<T>(req: Request, op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      if (!(err instanceof InfraError)) throw err;
      deps.logger.warn({ err, dependency: err.dependency, requestId: req.requestId }, 'a dependency failed; answering 503');
      throw new ApiError('unavailable', { retryAfterSeconds, details: { retriable: err.retriable } });
    }
  }
  return createHttpApp({
    logger: deps.logger,
    metricsPrefix: 'segmenter',
    metrics: deps.metrics,
    readiness: deps.readiness,
    // CORS on the verdicts only (SDK key, public): the inspector, segments and campaigns take the API
    // key, which must never be used from a browser, so they answer no CORS and no preflight.
    before: [
      browserCors({
        allowedOrigins: deps.corsOrigins ?? [],
        allowHeaders: ['Authorization', 'X-Request-Id'],
        allowMethods: ['GET', 'OPTIONS'],
        answerPreflight: true,
        skip: (url) => !url.startsWith(VERDICTS_PREFIX),
      }),
    ],
    routes: (router: Router) => {
      router.get('/v1/ingest/requests/:request_id', requireKey(deps.keys, ['sdk', 'api']), async (req, res) => {
        const { appId } = grantOf(req);
        const id = String(req.params.request_id);
        if (!REQUEST_ID_PATTERN.test(id))
          throw new ApiError('invalid_request', { message: 'request_id is 1–128 of A-Z a-z 0-9 . _ -', path: 'params.request_id' });
        const verdicts = await guarded(req, () => requestVerdicts(deps.analytics, appId, id));
        await recordRead(req, { route: 'GET /v1/ingest/requests/{request_id}' });
        res.status(200).json(verdicts);
      });
      router.get('/v1/inspect/events', requireKey(deps.keys, 'api'), async (req, res) => {
        const { appId } = grantOf(req);
        const q = parseInspectQuery(req.query);
        const data = await guarded(req, () => inspectEvents(deps.analytics, appId, q));
        await recordRead(req, { route: 'GET /v1/inspect/events', person: q.user_id ?? null, rows: data.length });
        res.status(200).json({ data });
      });
      router.get('/v1/inspect/rejected', requireKey(deps.keys, 'api'), async (req, res) => {
        const { appId } = grantOf(req);
        const q = parseInspectQuery(req.query);
        const data = await guarded(req, () => inspectRejected(deps.analytics, appId, q));
        await recordRead(req, { route: 'GET /v1/inspect/rejected', person: q.user_id ?? null, rows: data.length });
        res.status(200).json({ data });
      });
      router.get('/v1/inspect/deadletters', requireKey(deps.keys, 'api'), async (req, res) => {
        const { appId } = grantOf(req);
        const q = parseDeadLetterQuery(req.query);
        const data = await guarded(req, () => inspectDeadLetters(deps.analytics, appId, q));
        await recordRead(req, { route: 'GET /v1/inspect/deadletters', rows: data.length });
        res.status(200).json({ data });
      });
      router.get('/v1/inspect/health', requireKey(deps.keys, 'api'), async (req, res) => {
        const { appId } = grantOf(req);
        const minutes = spanParam(req.query, 'minutes', MINUTES_DEFAULT, MINUTES_MAX);
        res.status(200).json(await guarded(req, () => appHealth(deps.analytics, appId, minutes, Date.now())));
      });
      if (deps.segments) segmentRoutes(router, deps.keys, deps.segments, deps.analytics, guarded, recordRead);
      if (deps.campaigns) campaignRoutes(router, deps.keys, deps.campaigns, deps.analytics, guarded);
      if (deps.privacy) privacyRoutes(router, deps.keys, deps.privacy, guarded, recordRead);
      keyRoutes(router, deps.keys, guarded);
      auditRoutes(router, deps.keys, accessLog, guarded);
      if (deps.console) consoleRoutes(router, deps.console);
    },
  });
}
