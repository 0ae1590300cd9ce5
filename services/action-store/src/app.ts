import { type Request, type Response, type Router } from 'express';
import { ApiError, InfraError, type KeyRing, type Logger, type Checked, type RejectionReason, type SuppressionSet } from '@evp/core';
import {
  USER_TOKEN_HEADER,
  browserCors,
  createAccessLog,
  createHttpApp,
  createInMemoryAccessLogStorage,
  jsonBody,
  grantOf,
  readRecorder,
  requireKey,
  userTokens,
  type AccessLog,
  type HttpMetrics,
  type UserTokens,
} from '@evp/http';
import {
  ACTION_SOURCES,
  DEFAULT_PULL_MAX,
  generatorPulls,
  olderSdkPulls,
  parseGeneratorFetch,
  parseOlderSdkFetch,
  queuedMicros,
  toGeneratorNudge,
  toOlderSdkNudge,
  parseCreateRequest,
  parsePullRequest,
  parseSdkPullRequest,
  parseUserIdParam,
  type ActionRecord,
  type ActionStore,
  type CreateStatus,
  type PullQuery,
} from '@evp/actions';
import { createActionRouteMetrics } from './metrics';
import { userPullLimit, type UserPullLimitOptions } from './user-rate-limit';

export interface ActionStoreAppDeps {
  store: ActionStore;
  /** Suppressed (erased) users: POST /v1/actions naming one answers 409 user_suppressed. Absent: none is. */
  suppressions?: SuppressionSet;
  keys: KeyRing;
  logger: Logger;
  /** Most actions one pull returns. Default 1,000. */
  pullMax?: number;
  /** Body limit for every route. Default 16 MiB (1,000 actions with large bodies). */
  maxBodyBytes?: number;
  /** Seconds a client should wait after a 503. Default 1. */
  retryAfterSeconds?: number;
  /** Origins allowed to call the SDK-key routes (the SDK pull, the older clients' fetch) from a browser. Default none. */
  corsOrigins?: readonly string[];
  /** Problems that make the service not ready; default: the store's ping. */
  readiness?: () => Promise<string[]>;
  metrics?: HttpMetrics;
  /** The per-user limit of the single-user pulls (user-rate-limit.ts); defaults: 60 at once, 1 a second. */
  userPullLimit?: UserPullLimitOptions;
  /** The user token checks; default: the app's own, counted in its registry. One process of several apps shares one (one series). */
  userTokens?: UserTokens;
  now?: () => number;
  /**
   * Where bulk pulls are recorded before they run (docs/privacy.md, "Access log"); the SDK's own
   * pulls are not (a person reading their own actions). Default: an in-memory log (tests).
   */
  accessLog?: AccessLog;
}

/** The action store's readiness: its store answers a ping. */
export const storeReadiness = (store: ActionStore) => async (): Promise<string[]> => ((await store.ping()) ? [] : ['action store: not reachable']);

/** Most issues one 400 lists: the answer stays small however many items a body gets wrong. */
export const MAX_ISSUES_LISTED = 100;

/**
 * 400 invalid_request naming the first offending value; `details.issues` lists the first
 * MAX_ISSUES_LISTED problems and `details.issue_count` how many there are.
 */
function orBadRequest<T>(r: Checked<T>): T {
  if (r.ok) return r.value;
  const first = r.reasons[0] as RejectionReason;
  throw new ApiError('invalid_request', {
    message: first.message,
    path: first.path,
    details: { issues: r.reasons.slice(0, MAX_ISSUES_LISTED), issue_count: r.reasons.length },
  });
}

/**
 * The key alone decides the app. A body may still carry a top-level `app_id` (the
 * `actions.requested` message form has one, so callers may send it here too): naming the key's own
 * app is harmless and is dropped before validation; naming another app is an attempt to reach its
 * actions, answered 403 forbidden_app rather than 400, so the caller learns that the key, not the
 * field's spelling, is the problem.
 */
function checkAppClaim(req: Request, appId: string): void {
  const b = req.body as unknown;
  if (b === null || typeof b !== 'object' || Array.isArray(b) || !Object.hasOwn(b, 'app_id')) return;
  const claimed = (b as Record<string, unknown>).app_id;
  if (claimed !== appId) {
    throw new ApiError('forbidden_app', { message: "app_id names another app than the key's; the key alone decides the app.", path: '$.app_id' });
  }
  delete (b as Record<string, unknown>).app_id;
}

/** `params.action_id`: a decimal action id, else 400. */
function actionIdParam(req: Request): number {
  const raw = String(req.params.action_id);
  if (!/^[0-9]{1,16}$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new ApiError('invalid_request', { message: 'action_id must be a non-negative integer', path: 'params.action_id' });
  }
  return Number(raw);
}

/**
 * CORS for the SDK-key routes only (the SDK pull, the older clients' fetch): the SDK key is public,
 * API keys must never be used from a browser. Each route answers its own preflight.
 */
const sdkCors = (allowedOrigins: readonly string[], method: 'GET' | 'POST') =>
  browserCors({
    allowedOrigins,
    allowHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', USER_TOKEN_HEADER],
    allowMethods: [method, 'OPTIONS'],
    answerPreflight: true,
  });

/**
 * The action API: create (API key), bulk pull (API key, spec 4.1), single-user pull (SDK key),
 * stats and unblock (API key), and the older clients' single-user fetches (GET /v1/nudge/sdk/{user_id},
 * SDK key; GET /nudge/sdk/get, API key). The key alone decides the app; a body naming another app is
 * refused.
 */
export function createActionStoreApp(deps: ActionStoreAppDeps) {
  const pullMax = deps.pullMax ?? DEFAULT_PULL_MAX;
  const retryAfterSeconds = deps.retryAfterSeconds ?? 1;
  const body = jsonBody(deps.maxBodyBytes ?? 16 * 1024 * 1024);
  const readiness = deps.readiness ?? storeReadiness(deps.store);
  const recordRead = readRecorder(deps.accessLog ?? createAccessLog(createInMemoryAccessLogStorage()), deps.logger, retryAfterSeconds);

  /** Infrastructure failures become 503 + Retry-After: nothing was changed, the client may retry. */
  async function guarded<T>(what: string, req: Request, op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      if (!(err instanceof InfraError)) throw err;
      deps.logger.warn({ err, requestId: req.requestId }, `${what} failed; answering 503`);
      throw new ApiError('unavailable', { retryAfterSeconds, details: { retriable: err.retriable } });
    }
  }

  return createHttpApp({
    logger: deps.logger,
    metricsPrefix: 'action_store',
    metrics: deps.metrics,
    readiness,
    routes: (router: Router, metrics: HttpMetrics) => {
      const m = createActionRouteMetrics(metrics.registry);
      // The single-user calls of an SDK key (public): the user's token under the app's policy
      // (docs/keys.md, "User tokens"), then the user's own pull bucket.
      const tokens = deps.userTokens ?? userTokens(deps.keys, metrics.registry, deps.now);
      const limitUser = userPullLimit({ ...(deps.now ? { now: deps.now } : {}), ...deps.userPullLimit });
      const forOneUser = (req: Request, userId: string) => {
        tokens.requireFor(req, userId);
        limitUser(grantOf(req).appId, userId);
      };

      const pull =
        (route: string, parse: (b: unknown) => Checked<PullQuery>, oneUser = false) =>
        async (req: Request, res: Response) => {
          const { appId } = grantOf(req);
          checkAppClaim(req, appId);
          const query = orBadRequest(parse(req.body));
          if (oneUser) forOneUser(req, query.user_id);
          // Recorded before the pull, not after: a pull hands actions out (one-off delivery), so a log
          // written afterwards that failed would lose them; a pull that then fails leaves an entry too many.
          else await recordRead(req, { route: 'POST /v1/action/pull', person: query.user_id === '*' ? null : query.user_id });
          const result = await guarded('pull', req, () => deps.store.pull(appId, query, { max: pullMax }));
          if (result.data.length > 0) m.delivered.inc({ route, delivery_mode: query.delivery_mode }, result.data.length);
          res.status(200).json(result.more ? { data: result.data, more: true, cursor: result.cursor } : { data: result.data, more: false });
        };

      router.post('/v1/actions', requireKey(deps.keys, 'api'), body, async (req, res) => {
        const { appId } = grantOf(req);
        checkAppClaim(req, appId);
        const actions = orBadRequest(parseCreateRequest(req.body));
        // An erased user's actions are refused whole (docs/privacy.md): the caller learns it, by code.
        const suppressed = deps.suppressions ? actions.flatMap((a, i) => (deps.suppressions?.has(appId, 'user', a.user_id) ? [i] : [])) : [];
        if (suppressed.length > 0) {
          m.created.inc({ status: 'suppressed' }, suppressed.length);
          const at = Array.isArray(req.body) ? '$' : '$.actions';
          throw new ApiError('user_suppressed', { path: `${at}[${suppressed[0]}].user_id`, details: { indices: suppressed } });
        }
        const results = await guarded('create', req, () => deps.store.create(appId, actions, { source: ACTION_SOURCES.api }));
        // No `capped` here: this route refuses `caps` (frequency caps count campaign actions, which
        // come through actions.requested), so the answer keeps its four counts.
        const counts: Record<Exclude<CreateStatus, 'capped'>, number> = { created: 0, duplicate: 0, expired: 0, blocked: 0 };
        for (const r of results) if (r.status !== 'capped') counts[r.status]++;
        for (const [status, n] of Object.entries(counts)) if (n > 0) m.created.inc({ status }, n);
        res.status(200).json({ data: results, counts });
      });

      router.post('/v1/action/pull', requireKey(deps.keys, 'api'), body, pull('bulk', parsePullRequest));

      const corsOrigins = deps.corsOrigins ?? [];
      router.options('/v1/action/sdk/pull', sdkCors(corsOrigins, 'POST'));
      router.post('/v1/action/sdk/pull', sdkCors(corsOrigins, 'POST'), requireKey(deps.keys, 'sdk'), tokens.read, body, pull('sdk', parseSdkPullRequest, true));

      /**
       * The older clients' single-user fetch (docs/actions.md, "Older clients' fetch"): the pulls of
       * every dimension the fetch covers, one-off first, at most pullMax entries in all, oldest first.
       * Entries this answer does not carry stay available (one-off) or come again (cached).
       */
      const fetchAll = async (route: string, appId: string, queries: PullQuery[], keep: (r: ActionRecord) => boolean = () => true) => {
        const records: ActionRecord[] = [];
        for (const q of queries) {
          if (records.length >= pullMax) break;
          const result = await deps.store.pull(appId, q, { max: pullMax - records.length });
          const kept = result.data.filter(keep);
          if (kept.length > 0) m.delivered.inc({ route, delivery_mode: q.delivery_mode }, kept.length);
          records.push(...kept);
        }
        return records.sort((a, b) => (a.queued_at < b.queued_at ? -1 : a.queued_at > b.queued_at ? 1 : 0));
      };

      // CausalFoundry iOS 0.4.3–1.2.3 (SDK key): a bare array of the nudges they decode. As the SDK
      // pull: the user's token under the app's policy, and the user's pull bucket.
      router.options('/v1/nudge/sdk/:user_id', sdkCors(corsOrigins, 'GET'));
      router.get('/v1/nudge/sdk/:user_id', sdkCors(corsOrigins, 'GET'), requireKey(deps.keys, 'sdk'), tokens.read, async (req, res) => {
        const { appId } = grantOf(req);
        const f = orBadRequest(parseOlderSdkFetch(String(req.params.user_id), req.query as Record<string, unknown>));
        forOneUser(req, f.user_id);
        const records = await guarded('pull', req, () => fetchAll('nudge_sdk', appId, olderSdkPulls(f)));
        res.status(200).json(records.map(toOlderSdkNudge));
      });

      // The synthetic data generator (its API key, as for its uploads): every action of the user, as
      // a bare array of {id, action, queued_at}. Cached actions it already saw (queued at or before
      // `queued_at`) are left out; every available one-off action is new to it by definition.
      router.get('/nudge/sdk/get', requireKey(deps.keys, 'api'), async (req, res) => {
        const { appId } = grantOf(req);
        const f = orBadRequest(parseGeneratorFetch(req.query as Record<string, unknown>));
        const after = f.queued_after === undefined ? undefined : Math.round(f.queued_after * 1000);
        const isNew = (r: ActionRecord) => after === undefined || r.payload.delivery_mode === 'one-off' || queuedMicros(r.queued_at) > after;
        // An API key pulling one person's actions (the generator's fetch): recorded before, as the bulk pull.
        await recordRead(req, { route: 'GET /nudge/sdk/get', person: f.user_id });
        const records = await guarded('pull', req, () => fetchAll('nudge_get', appId, generatorPulls(f), isNew));
        res.status(200).json(records.map(toGeneratorNudge));
      });

      router.get('/v1/actions/:action_id/stats', requireKey(deps.keys, 'api'), async (req, res) => {
        const { appId } = grantOf(req);
        const actionId = actionIdParam(req);
        const stats = await guarded('stats', req, () => deps.store.stats(appId, actionId));
        if (!stats) throw new ApiError('not_found', { message: `No action ${actionId} in this app.`, path: 'params.action_id' });
        res.status(200).json(stats);
      });

      // Lifts a user's block of one action_id (see docs/actions.md "Feedback"). API key only: an
      // SDK key is public, and a block is the user's own choice, so only the partner's backend
      // (acting on the user's request) may undo it. Idempotent: a second call answers not_blocked.
      router.delete('/v1/actions/:action_id/blocks/:user_id', requireKey(deps.keys, 'api'), async (req, res) => {
        const { appId } = grantOf(req);
        const actionId = actionIdParam(req);
        const userId = orBadRequest(parseUserIdParam(req.params.user_id));
        const status = await guarded('unblock', req, () => deps.store.unblock(appId, userId, actionId));
        if (status === 'unknown_action') throw new ApiError('not_found', { message: `No action ${actionId} in this app.`, path: 'params.action_id' });
        m.unblocked.inc({ status });
        res.status(200).json({ action_id: actionId, user_id: userId, status });
      });
    },
  });
}
