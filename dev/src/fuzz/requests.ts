import { deflateSync, gzipSync } from 'node:zlib';
import type { Random } from './random';

/** One hostile request, as the bytes to put on the wire (raw, so malformed HTTP can be sent too). */
export interface FuzzRequest {
  target: 'gateway' | 'actions';
  /** What the generator built, for the summary and for replaying a failure. */
  label: string;
  bytes: Buffer;
}

export interface FuzzKeys {
  sdk: string;
  api: string;
  /** The SDK key of an app that enforces user tokens (tokens.ts), and hostile tokens for it. */
  enforcedSdk: string;
  userTokens: string[];
}

const GATEWAY_PATHS = ['/v1/ingest/log', '/v1/ingest/log', '/v1/ingest/events', '/v1/ingest/catalog/site', '/v1/ingest/catalog/user_chw', '/healthz'];
const ACTION_PATHS = ['/v1/actions', '/v1/actions', '/v1/action/pull', '/v1/action/sdk/pull', '/v1/actions/1/stats', '/v1/actions/1/blocks/u1', '/healthz'];
/** The method each path takes, used most of the time so requests get past routing. */
const METHOD_OF: Record<string, string> = { '/healthz': 'GET', '/v1/actions/1/stats': 'GET', '/v1/actions/1/blocks/u1': 'DELETE' };
/** Names of object built-ins, bad percent-escapes and odd bytes, for path segments. */
const HOSTILE_SEGMENTS = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '%',
  '%E0%A4%A',
  '%ZZ',
  '%C0%AF',
  '%00',
  '%ED%A0%80',
  '..',
  '%2e%2e',
  'a'.repeat(3000),
  '💥',
  '',
];
const METHODS = ['GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'BREW', 'G\u0000T'];
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/plain;charset=UTF-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset=x-nope',
  'application/json; charset',
  'application/xml',
  'multipart/form-data; boundary=x',
  '',
  ';;;',
];
const ENCODINGS = ['identity', 'gzip', 'deflate', 'br', 'gzip, deflate', 'x-nope'];
const EXPECTS = ['100-continue', 'teapot', ''];
const STRINGS = [
  '',
  'x',
  '\ud800',
  '\udfff',
  'a\ud83d',
  '\u0000',
  '\u2028',
  '💥',
  '"',
  '\\',
  'constructor',
  '__proto__',
  '*',
  ' '.repeat(300),
  'é'.repeat(2000),
];

const nested = (depth: number, open: string, close: string, inner = '') => open.repeat(depth) + inner + close.repeat(depth);

function scalar(r: Random): unknown {
  return r.pick<unknown>([null, true, false, 0, -1, 1e308, -0, 2 ** 53 + 1, 1.5, r.pick(STRINGS), [], {}]);
}

/** A JSON value of random shape (bounded size), for fields the services expect to be something else. */
function value(r: Random, depth = 0): unknown {
  if (depth > 3 || r.chance(0.5)) return scalar(r);
  if (r.chance(0.5)) return Array.from({ length: r.int(4) }, () => value(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = r.int(4); i > 0; i--)
    o[r.pick(['id', 'data', 'ctx', 'name', 'time', '__proto__', 'constructor', 'u_id', r.pick(STRINGS)])] = value(r, depth + 1);
  return o;
}

function event(r: Random): Record<string, unknown> {
  const e: Record<string, unknown> = {
    time: r.chance(0.8) ? '2024-01-01 00:00:00.000' : value(r),
    name: r.pick(['page', 'identify', 'rate', r.pick(STRINGS)]),
    property: r.pick(['p', r.pick(STRINGS)]),
    ctx: r.chance(0.8) ? {} : value(r),
  };
  if (r.chance(0.2)) e[r.pick(['a_id', 'name', 'property'])] = r.pick(STRINGS);
  return e;
}

function envelope(r: Random): Record<string, unknown> {
  const env: Record<string, unknown> = {
    id: r.chance(0.8) ? `fz-${r.int(50)}` : value(r),
    tz: '+00:00',
    internal: { s_id: 's_1_0', sdk: 'web/1.0', a_id: r.chance(0.9) ? 'x' : r.pick(STRINGS), a_ver: '1.0.0 (1)', d_id: 'd', os: 'web' },
    data: r.chance(0.9) ? Array.from({ length: r.int(5) }, () => event(r)) : value(r),
  };
  if (r.chance(0.1)) delete env.data;
  return env;
}

function action(r: Random): unknown {
  if (r.chance(0.2)) return value(r);
  return {
    user_id: r.chance(0.8) ? 'u1' : r.pick(STRINGS),
    type: r.pick(['message', 'custom', 'nope']),
    render_method: r.pick(['push_notification', 'in_app_message', 'generic_message', 'x']),
    delivery_mode: r.pick(['one-off', 'cached', 'OneOff']),
    content: r.chance(0.9) ? { title: r.pick(STRINGS), body: 'b' } : value(r),
    expired_at: r.pick(['0001-01-01T00:00:00Z', '2030-01-01T00:00:00Z', 'soon', r.pick(STRINGS)]),
  };
}

/** A body: mostly near-valid JSON with hostile parts, sometimes plainly hostile bytes. */
function body(r: Random, target: FuzzRequest['target'], path: string): Buffer {
  const kind = r.int(16);
  if (kind === 0) return Buffer.from(nested(1000 + r.int(9000), '[', ']'));
  // Spliced in as text: JSON.stringify itself overflows the stack on thousands of levels.
  if (kind === 1)
    return Buffer.from(JSON.stringify({ ...envelope(r), data: [{ ...event(r), ctx: '<deep>' }] }).replace('"<deep>"', nested(60 + r.int(4500), '[', ']')));
  if (kind === 2) return Buffer.from(`[${Array.from({ length: r.pick([999, 1000, 1001, 20_000, 100_000]) }, () => '{"data":[]}').join(',')}]`);
  if (kind === 3) return Buffer.from(`[${Array.from({ length: r.pick([1000, 1001, 30_000, 100_000]) }, () => '{}').join(',')}]`);
  if (kind === 4) return Buffer.from(r.pick(['', '{', 'null', '"x"', '1e999999', '\ud800', '{"a":"\\ud800"}', '[1,]', 'NaN', '\u0000', '\xff\xfe{}']), 'utf8');
  if (kind === 5) return Buffer.from(Array.from({ length: r.int(2000) }, () => r.int(256)));
  if (kind === 6) return Buffer.from(JSON.stringify(value(r)));
  if (kind === 7) return Buffer.from(JSON.stringify({ actions: Array.from({ length: r.int(5) }, () => action(r)) }));
  if (target === 'actions' && kind < 12)
    return Buffer.from(
      JSON.stringify(
        path.includes('pull')
          ? {
              user_id: 'u1',
              type: 'message',
              render_method: 'push_notification',
              delivery_mode: r.pick(['one-off', 'cached', 'x']),
              cursor: r.chance(0.3) ? r.pick(STRINGS) : undefined,
            }
          : Array.from({ length: 1 + r.int(3) }, () => action(r)),
      ),
    );
  if (path.includes('catalog'))
    return Buffer.from(JSON.stringify(Array.from({ length: r.int(6) }, () => (r.chance(0.7) ? { id: r.pick(STRINGS), name: 'n', type: 'clinic' } : value(r)))));
  return Buffer.from(JSON.stringify(r.chance(0.6) ? envelope(r) : Array.from({ length: 1 + r.int(4) }, () => envelope(r))));
}

function encode(r: Random, bytes: Buffer, encoding: string): Buffer {
  if (encoding === 'gzip' && r.chance(0.7)) return r.chance(0.5) ? gzipSync(bytes) : gzipSync(bytes).subarray(0, 5 + r.int(20));
  if (encoding === 'deflate' && r.chance(0.7))
    return r.chance(0.5) ? deflateSync(bytes) : Buffer.concat([deflateSync(bytes).subarray(0, 4), Buffer.from([0xff, 0xff, 0xff])]);
  return bytes;
}

function path(r: Random, target: FuzzRequest['target']): string {
  const base = r.pick(target === 'gateway' ? GATEWAY_PATHS : ACTION_PATHS);
  if (r.chance(0.75)) return base;
  const segments = base.split('/');
  segments[1 + r.int(segments.length - 1)] = r.pick(HOSTILE_SEGMENTS);
  return `${segments.join('/')}${r.chance(0.1) ? `?q=${r.pick(HOSTILE_SEGMENTS)}` : ''}`;
}

/** Malformed HTTP that Node's parser refuses before any route. */
function malformed(r: Random): Buffer {
  return Buffer.from(
    r.pick([
      'GARBAGE\r\n\r\n',
      'GET / HTTP/9.9\r\n\r\n',
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000 + r.int(50_000))}\r\n\r\n`,
      'POST /v1/ingest/log HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      'POST /v1/ingest/log HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
      'GET /\u0000 HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET / HTTP/1.1\r\nBad Header\r\n\r\n',
      'POST /v1/ingest/log HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    ]),
    'latin1',
  );
}

/** The next request drawn from `r`: which service, then what to get wrong (anything, several things, or nothing). */
export function hostileRequest(r: Random, keys: FuzzKeys): FuzzRequest {
  const target = r.chance(0.6) ? 'gateway' : 'actions';
  if (r.chance(0.04)) return { target, label: 'malformed http', bytes: malformed(r) };
  const p = path(r, target);
  const method = r.chance(0.85) ? (METHOD_OF[p] ?? 'POST') : r.pick(METHODS);
  const headers: string[] = ['Host: fuzz', 'Connection: close'];
  const key = r.pick([
    target === 'gateway' ? keys.sdk : keys.api,
    target === 'gateway' ? keys.sdk : keys.api,
    keys.sdk,
    keys.api,
    keys.enforcedSdk,
    'nope-nope-nope-nope',
    '',
  ]);
  if (key || r.chance(0.5)) headers.push(`Authorization: ${r.chance(0.95) ? 'Bearer ' : r.pick(['Basic ', '', 'Bearer  '])}${key}`);
  const contentType = r.chance(0.7) ? r.pick(CONTENT_TYPES.slice(0, 3)) : r.pick(CONTENT_TYPES);
  if (contentType) headers.push(`Content-Type: ${contentType}`);
  const encoding = r.chance(0.7) ? 'identity' : r.pick(ENCODINGS);
  if (encoding !== 'identity' || r.chance(0.1)) headers.push(`Content-Encoding: ${encoding}`);
  const expect = r.chance(0.05) ? r.pick(EXPECTS) : undefined;
  if (expect) headers.push(`Expect: ${expect}`);
  if (r.chance(0.05)) headers.push(`X-Request-Id: ${r.pick(STRINGS)}`);
  // User tokens, mostly with the enforcing app's key (its policy makes every one verified).
  const token = r.chance(key === keys.enforcedSdk ? 0.9 : 0.1) ? r.pick(keys.userTokens) : undefined;
  let target_ = p;
  if (token !== undefined) {
    if (r.chance(0.8)) headers.push(`X-EVP-User-Token: ${token}`);
    else target_ = `${p}${p.includes('?') ? '&' : '?'}user_token=${encodeURIComponent(token)}`;
  }
  const raw = method === 'GET' || method === 'HEAD' ? Buffer.alloc(0) : encode(r, body(r, target, p), encoding);
  headers.push(`Content-Length: ${raw.length}`);
  const head = Buffer.from(`${method} ${target_} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`, 'utf8');
  return { target, label: `${method} ${p.slice(0, 60)}`, bytes: Buffer.concat([head, raw]) };
}
