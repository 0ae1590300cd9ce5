import type { RawUserToken, UserTokenProblem } from './user-tokens';
import { LOG_PAYLOAD_KIND } from './vocabulary';

/** Header names of a raw message (`ingest.raw`): written by the gateway, read by the validator. */
export const rawHeaders = {
  appId: 'app_id',
  requestId: 'request_id',
  receivedAt: 'received_at',
  keyId: 'key_id',
  /** `log` for event envelopes, `catalog:<kind>` for catalog submissions (vocabulary.ts). */
  payloadKind: 'payload_kind',
  /**
   * Where this message sits in its request: a body holding an array of envelopes becomes one raw
   * message per envelope, and the receipts of all of them tell when the whole request is validated.
   */
  envelopeIndex: 'envelope_index',
  envelopeCount: 'envelope_count',
  /**
   * What the request said about its client, for the validator's quirk gates (a catalog body carries
   * no `sdk` string; docs/data-contract.md, "Which client sent a catalog"): the route form (`sdk` for
   * `/v1/…`, `import` for the API-key `/data/…` paths), the client's own declaration (`X-EVP-SDK`)
   * and its `User-Agent`, each as sent (bounded).
   */
  routeForm: 'route_form',
  clientSdk: 'client_sdk',
  userAgent: 'user_agent',
  /**
   * The user token, when the app's policy is report or enforce (docs/keys.md, "User tokens"): the
   * policy, and either the verified token's sub or why there is none (`required`, `invalid`,
   * `expired`). The validator rejects (enforce) or marks (report) each event of another user.
   */
  userTokenPolicy: 'user_token_policy',
  userTokenSub: 'user_token_sub',
  userTokenProblem: 'user_token_problem',
} as const;

/** The route forms of `route_form`. */
export type RouteForm = 'sdk' | 'import';

/** What the request said about its client (rawHeaders.routeForm, clientSdk, userAgent). */
export interface RequestClient {
  route: RouteForm;
  /** `X-EVP-SDK` as sent (`<os>/<version>`), when the client declared itself. */
  sdk?: string;
  userAgent?: string;
}

/** Longest client header forwarded: a declaration or User-Agent is a short string; a long one is cut, never dropped. */
const MAX_CLIENT_HEADER_CHARS = 256;

/** Who sent a raw message and when: from the key's grant and the gateway's clock, never from the body. */
export interface IngestContext {
  appId: string;
  requestId: string;
  receivedAt: number;
  keyId: string;
  /** What the gateway verified of the upload's user token (the validator's per-event rule); absent: the app's policy is off. */
  userToken?: RawUserToken;
}

/** What the headers of a raw message say. */
export interface RawHeaderFields {
  ctx: IngestContext;
  payloadKind: string;
  /** Where the message sits in its request. */
  envelope: { index: number; count: number };
  /** What the request said about its client; absent in messages of older gateways and hand-made ones. */
  client?: RequestClient;
  /** What the gateway verified of the user token; absent under the app's policy off (and from older gateways). */
  userToken?: RawUserToken;
}

export function toRawHeaders(f: RawHeaderFields): Record<string, string> {
  return {
    [rawHeaders.appId]: f.ctx.appId,
    [rawHeaders.requestId]: f.ctx.requestId,
    [rawHeaders.receivedAt]: String(f.ctx.receivedAt),
    [rawHeaders.keyId]: f.ctx.keyId,
    [rawHeaders.payloadKind]: f.payloadKind,
    [rawHeaders.envelopeIndex]: String(f.envelope.index),
    [rawHeaders.envelopeCount]: String(f.envelope.count),
    ...(f.client === undefined ? {} : clientHeaders(f.client)),
    ...(f.userToken === undefined ? {} : userTokenHeaders(f.userToken)),
  };
}

function userTokenHeaders(t: RawUserToken): Record<string, string> {
  const out: Record<string, string> = { [rawHeaders.userTokenPolicy]: t.policy };
  if (t.sub !== undefined) out[rawHeaders.userTokenSub] = t.sub;
  if (t.problem !== undefined) out[rawHeaders.userTokenProblem] = t.problem;
  return out;
}

const PROBLEMS: readonly string[] = ['required', 'invalid', 'expired'] satisfies UserTokenProblem[];

/**
 * The user token headers, when the gateway wrote them. A policy header with neither a sub nor a known
 * problem reads as `required`: a damaged header never passes for a verified user.
 */
function userTokenOf(headers: Readonly<Record<string, string | undefined>>): RawUserToken | undefined {
  const policy = headers[rawHeaders.userTokenPolicy];
  if (policy !== 'report' && policy !== 'enforce') return undefined;
  const sub = headers[rawHeaders.userTokenSub];
  if (sub !== undefined && sub !== '') return { policy, sub };
  const problem = headers[rawHeaders.userTokenProblem];
  return { policy, problem: problem !== undefined && PROBLEMS.includes(problem) ? (problem as UserTokenProblem) : 'required' };
}

function clientHeaders(c: RequestClient): Record<string, string> {
  const out: Record<string, string> = { [rawHeaders.routeForm]: c.route };
  if (c.sdk !== undefined) out[rawHeaders.clientSdk] = c.sdk.slice(0, MAX_CLIENT_HEADER_CHARS);
  if (c.userAgent !== undefined) out[rawHeaders.userAgent] = c.userAgent.slice(0, MAX_CLIENT_HEADER_CHARS);
  return out;
}

/** The client headers, when the gateway wrote them (an unknown route form is `sdk`: no import identity by accident). */
function clientOf(headers: Readonly<Record<string, string | undefined>>): RequestClient | undefined {
  const route = headers[rawHeaders.routeForm];
  if (route === undefined) return undefined;
  const sdk = headers[rawHeaders.clientSdk];
  const userAgent = headers[rawHeaders.userAgent];
  return {
    route: route === 'import' ? 'import' : 'sdk',
    ...(sdk === undefined ? {} : { sdk }),
    ...(userAgent === undefined ? {} : { userAgent }),
  };
}

/** A non-negative integer header, or the fallback when absent or malformed. */
function intHeader(v: string | undefined, fallback: number): number {
  const n = Number(v);
  return v !== undefined && Number.isSafeInteger(n) && n >= 0 ? n : fallback;
}

/**
 * Reads what toRawHeaders wrote, tolerating messages of older gateways and hand-made ones: a missing
 * payload kind is `log`, a missing or malformed receipt time is the message's timestamp, a missing
 * position is 0 of 1 (an index past the count is the last one), a missing id is empty (the validator
 * rejects a message without an app id).
 */
export function fromRawHeaders(headers: Readonly<Record<string, string | undefined>>, timestamp: number): RawHeaderFields {
  const count = Math.max(1, intHeader(headers[rawHeaders.envelopeCount], 1));
  const client = clientOf(headers);
  const userToken = userTokenOf(headers);
  return {
    ctx: {
      appId: headers[rawHeaders.appId] ?? '',
      requestId: headers[rawHeaders.requestId] ?? '',
      keyId: headers[rawHeaders.keyId] ?? '',
      receivedAt: Number(headers[rawHeaders.receivedAt] ?? timestamp) || timestamp,
    },
    payloadKind: headers[rawHeaders.payloadKind] ?? LOG_PAYLOAD_KIND,
    envelope: { index: Math.min(intHeader(headers[rawHeaders.envelopeIndex], 0), count - 1), count },
    ...(client === undefined ? {} : { client }),
    ...(userToken === undefined ? {} : { userToken }),
  };
}
