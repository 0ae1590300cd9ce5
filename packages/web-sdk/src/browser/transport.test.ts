import { fetchTransport } from './transport';

/**
 * The browser transport with the browser's fetch / sendBeacon replaced by recorders (Node has fetch,
 * Request and Blob; navigator is stubbed).
 */
describe('fetch transport', () => {
  const realFetch = globalThis.fetch;
  const realKeepalive = Object.getOwnPropertyDescriptor(Request.prototype, 'keepalive');
  let calls: { url: string; init: RequestInit }[];
  let beacons: { url: string; body: Blob }[];

  beforeEach(() => {
    calls = [];
    beacons = [];
    Object.defineProperty(globalThis, 'navigator', {
      configurable: true,
      value: { sendBeacon: (url: string, body: Blob) => beacons.push({ url, body }) > 0 },
    });
  });
  afterEach(() => {
    globalThis.fetch = realFetch;
    if (realKeepalive) Object.defineProperty(Request.prototype, 'keepalive', realKeepalive);
    delete (globalThis as { navigator?: unknown }).navigator;
  });
  const answer = (status: number, headers: Record<string, string> = {}, body = '{"request_id":"r1"}') => {
    globalThis.fetch = (async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return new Response(body, { status, headers });
    }) as typeof fetch;
  };

  it('posts JSON with the SDK key as a bearer token, keepalive while the page unloads', async () => {
    answer(200);
    const t = fetchTransport('sdk_abc');
    expect(await t.post('https://x/v1/ingest/log', '{"a":1}', true)).toEqual({ status: 200, retryAfter: undefined, body: { request_id: 'r1' } });
    expect(calls).toEqual([
      {
        url: 'https://x/v1/ingest/log',
        init: {
          method: 'POST',
          headers: { Authorization: 'Bearer sdk_abc', 'Content-Type': 'application/json' },
          body: '{"a":1}',
          keepalive: true,
          credentials: 'omit',
        },
      },
    ]);
    expect(beacons).toEqual([]);
  });

  it('reads Retry-After in seconds, and a network error as status 0', async () => {
    answer(503, { 'Retry-After': '7' }, '{"error":{"code":"unavailable"}}');
    expect(await fetchTransport('k').post('https://x/v1/ingest/log', '{}', false)).toEqual({
      status: 503,
      retryAfter: 7,
      body: { error: { code: 'unavailable' } },
    });
    globalThis.fetch = () => Promise.reject(new TypeError('Failed to fetch'));
    expect(await fetchTransport('k').post('https://x/v1/ingest/log', '{}', false)).toEqual({ status: 0 });
  });

  it('without keepalive fetch, unloads with sendBeacon: the key in sdk_key, a text/plain body, the answer unseen (the batch stays, no backoff)', async () => {
    answer(200);
    Object.defineProperty(Request.prototype, 'keepalive', { configurable: true, value: undefined });
    delete (Request.prototype as { keepalive?: unknown }).keepalive;
    const res = await fetchTransport('sdk_a b').post('https://x/v1/ingest/log', '{"a":1}', true);
    expect(res).toEqual({ status: 0, beacon: true });
    expect(calls).toEqual([]);
    expect(beacons.map((b) => [b.url, b.body.type])).toEqual([['https://x/v1/ingest/log?sdk_key=sdk_a%20b', 'text/plain']]);
    expect(await beacons[0]!.body.text()).toBe('{"a":1}');
  });
});
