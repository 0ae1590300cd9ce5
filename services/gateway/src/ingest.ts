import type { Request, Response } from 'express';
import { toRawHeaders, type RawUserToken, type RequestClient } from '@evp/contract';
import { ApiError, InfraError, type BusProducer, type Logger, type SuppressionSet } from '@evp/core';
import {
  checkJsonContentType,
  checkJsonDepth,
  grantOf,
  userTokenError,
  userTokenOutcome,
  type RequestUserToken,
  type UserTokenOutcome,
  type UserTokens,
} from '@evp/http';
import { readBody } from './body';
import type { AnswerStyle } from './client-answers';
import type { IngestMetrics } from './metrics';

/** What a route makes of a parsed body: the raw messages to produce and the count to acknowledge. */
export interface IngestPlan {
  /** `log` or `catalog:<kind>`: the raw message's payload_kind header. */
  payloadKind: string;
  /** Metric label: `log` or `catalog`. */
  metricKind: string;
  accepted: number;
  messages: { key: string; value: Buffer }[];
  /** How the client reads the answer (client-answers.ts). */
  answer: AnswerStyle;
  /**
   * Forward what the request says about its client (requestClient) with the messages: catalog
   * uploads, whose bodies carry no sdk string. Log envelopes name their client themselves, so the
   * hot path writes no extra headers.
   */
  forwardClient?: true;
  /**
   * The user of each message, in order (log, crash): what the user token is counted against, and
   * whose suppression drops the message.
   */
  userIds?: string[];
}

export interface IngestDeps {
  producer: BusProducer;
  logger: Logger;
  metrics: IngestMetrics;
  maxBodyBytes: number;
  retryAfterSeconds: number;
  now: () => number;
  rawTopic: string;
  tokens: UserTokens;
  /** Suppressed (erased) users, whose envelopes are dropped; absent: none is. */
  suppressions?: SuppressionSet;
}

/**
 * The messages to produce: those of suppressed users are left out (an erased person's data must
 * not come back, docs/privacy.md), and counted.
 */
function unsuppressed(deps: IngestDeps, appId: string, p: IngestPlan): IngestPlan['messages'] {
  const set = deps.suppressions;
  const users = p.userIds;
  if (!set || !users || set.size() === 0) return p.messages;
  const kept = p.messages.filter((_, i) => {
    const user = users[i];
    return user === undefined || !set.has(appId, 'user', user);
  });
  deps.metrics.suppressed.inc(p.messages.length - kept.length);
  return kept;
}

/**
 * What the gateway tells the validator of the user token (raw headers), or throws: under enforce a
 * token that was sent but is invalid or expired answers 401 for the whole upload, so the client
 * renews it and sends again (it keeps the batch until a 2xx); a missing token or another user's is
 * the validator's per-event rule, which keeps the rest of the upload.
 */
function rawUserToken(token: RequestUserToken | undefined, refused: (outcome: 'invalid' | 'expired') => void): RawUserToken | undefined {
  if (token === undefined) return undefined;
  const c = token.check;
  if (c === undefined) return { policy: token.policy, problem: 'required' };
  if (c.outcome === 'valid') return { policy: token.policy, sub: c.sub };
  if (token.policy === 'enforce') {
    refused(c.outcome);
    throw userTokenError(c.outcome, token);
  }
  return { policy: token.policy, problem: c.outcome };
}

/** One outcome per upload for user_tokens_total: the first refusal among its users, else valid or anonymous. */
function uploadOutcome(token: RequestUserToken, userIds: string[] | undefined): UserTokenOutcome {
  const outcomes = (userIds ?? []).map((u) => userTokenOutcome(token, u));
  const check = token.check;
  return (
    outcomes.find((o) => o !== 'valid' && o !== 'anonymous') ??
    outcomes.find((o) => o === 'valid') ??
    outcomes[0] ??
    (check === undefined ? 'required' : check.outcome === 'valid' ? 'valid' : check.outcome)
  );
}

/** The header a client declares itself by (`<os>/<version>`, as an envelope's `sdk`). */
const CLIENT_SDK_HEADER = 'x-evp-sdk';

/**
 * What the request says about its client, forwarded to the validator's quirk gates (catalog bodies
 * carry no `sdk` string): `/data/…` is the API-key import form; the client's declaration is the
 * `X-EVP-SDK` header, else an `sdk` query parameter (a beacon cannot set headers); and the
 * User-Agent. Read from the URL and headers only: the hot path does not parse the query.
 */
function requestClient(req: Request): RequestClient {
  const url = req.url;
  const q = url.indexOf('?');
  const sdk = req.headers[CLIENT_SDK_HEADER] ?? (q === -1 ? undefined : (new URLSearchParams(url.slice(q + 1)).get('sdk') ?? undefined));
  const userAgent = req.headers['user-agent'];
  return {
    route: url.startsWith('/data/') ? 'import' : 'sdk',
    ...(typeof sdk === 'string' ? { sdk } : {}),
    ...(userAgent === undefined ? {} : { userAgent }),
  };
}

/**
 * The one ingest path for every route: bounded read → JSON (depth-bounded) → route-specific plan → produce (acks=all)
 * → 200. The 200 is written only after Kafka acknowledged; any produce failure answers 503.
 */
export function ingestHandler(deps: IngestDeps, plan: (req: Request, body: unknown, raw: { text: string; bytes: Buffer }, appId: string) => IngestPlan) {
  // Label children resolved once, not per request.
  const produced = { ok: deps.metrics.produceLatency.labels({ outcome: 'ok' }), error: deps.metrics.produceLatency.labels({ outcome: 'error' }) };
  const accepted = new Map<string, ReturnType<IngestMetrics['events']['labels']>>();
  return async (req: Request, res: Response) => {
    const grant = grantOf(req);
    const userToken = rawUserToken(req.userToken, (outcome) => deps.tokens.count(grant.appId, outcome));
    checkJsonContentType(req);
    const raw = await readBody(req, deps.maxBodyBytes);
    const text = raw.toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      throw new ApiError('invalid_json', { message: `The body is not valid JSON: ${(err as Error).message}`, path: '$' });
    }
    // Before anything walks the body: re-encoding an envelope (and the validator later) recurses.
    checkJsonDepth(raw, body);
    const p = plan(req, body, { text, bytes: raw }, grant.appId);
    if (req.userToken) deps.tokens.count(grant.appId, uploadOutcome(req.userToken, p.userIds));
    const requestId = req.requestId as string;
    // The key decides the app: headers come from the grant, never from the body.
    const ctx = { appId: grant.appId, requestId, keyId: grant.keyId, receivedAt: deps.now() };
    const client = p.forwardClient ? requestClient(req) : undefined;
    const messages = unsuppressed(deps, grant.appId, p);
    const count = messages.length;
    const started = performance.now();
    try {
      // Nothing left (every envelope was a suppressed user's): the client still gets its 200, so an
      // old client does not retry forever, and nothing is stored.
      if (count > 0)
        await deps.producer.send(
          deps.rawTopic,
          messages.map((m, i) => ({
            ...m,
            headers: toRawHeaders({ ctx, payloadKind: p.payloadKind, envelope: { index: i, count }, client, userToken }),
          })),
        );
      produced.ok.observe((performance.now() - started) / 1000);
    } catch (err) {
      produced.error.observe((performance.now() - started) / 1000);
      if (p.answer.closeOnRetriable) {
        // This client would delete the batch on any HTTP answer; a closed connection makes it keep it.
        deps.logger.warn({ err, requestId }, 'produce failed; closing the connection (the client reads no status)');
        req.socket.destroy();
        return;
      }
      deps.logger.warn({ err, requestId }, 'produce failed; answering 503');
      throw new ApiError('unavailable', {
        retryAfterSeconds: deps.retryAfterSeconds,
        details: { retriable: err instanceof InfraError ? err.retriable : true },
      });
    }
    let events = accepted.get(p.metricKind);
    if (!events) accepted.set(p.metricKind, (events = deps.metrics.events.labels({ kind: p.metricKind })));
    events.inc(p.accepted);
    deps.metrics.bytes.inc(raw.length);
    if (p.answer.emptySuccess) {
      // The older iOS clients count any body as a failure: the count travels in a header.
      res.writeHead(200, { 'Content-Length': 0, 'X-Events-Accepted': String(p.accepted) }).end();
      return;
    }
    // Written directly: Express's res.json (content-type lookup, send's checks) costs more than the
    // whole answer on the hottest route.
    const answer = JSON.stringify({ accepted: p.accepted, request_id: requestId });
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(answer) }).end(answer);
  };
}
