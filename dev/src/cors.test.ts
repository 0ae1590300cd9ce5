import { createLogger } from '@evp/core';
import { uniqueName } from '@evp/testkit';
import { createEmbeddedParts } from './embedded-parts';
import { platformOpenApi } from './openapi';
import { startPipeline, type RunningPipeline } from './pipeline';
import { sdkPullBody } from './testing/one-event';
import { SDK_KEY, e2eKeys } from './testing/scenario';

/**
 * CORS on every route of the OpenAPI document, generated from it: an operation a browser may call
 * (the SDK key, public) answers preflights for the allowed origins and no other; an API-key route
 * answers none. A route added to the document is covered without touching this file.
 */
interface Operation {
  method: string;
  path: string;
}

// A sample value for every path parameter the document names.
const SAMPLES: Record<string, string> = {
  kind: 'user',
  request_id: 'r-cors',
  user_id: 'user-1',
  action_id: '1',
  campaign_id: 'c-1',
  segment_id: 's-1',
  file: 'web.js',
  id: 'p-cors',
};
const concrete = (path: string) =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const sample = SAMPLES[name];
    if (sample === undefined) throw new Error(`no sample value for the path parameter ${name} of ${path}`);
    return sample;
  });

function operations(which: 'sdk' | 'api'): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(platformOpenApi().paths)) {
    for (const [method, op] of Object.entries(item as Record<string, { security?: Record<string, string[]>[] }>)) {
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      const sdk = schemes.some((s) => s.startsWith('sdkKey'));
      if (method === 'options' || (which === 'sdk' ? !sdk : sdk || !schemes.includes('apiKey'))) continue;
      ops.push({ method: method.toUpperCase(), path });
    }
  }
  return ops;
}

const SDK_OPERATIONS = operations('sdk');
const API_OPERATIONS = operations('api');
const SHOP = 'https://shop.example';
const OTHER = 'https://elsewhere.example';

function corsHarness(name: string, corsOrigins?: readonly string[]) {
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database: uniqueName(name).replace(/-/g, '_') });
  let pipeline: RunningPipeline;
  beforeAll(async () => {
    pipeline = await startPipeline({ parts, keys: e2eKeys(), logger: createLogger(name, 'silent'), sinkFlushMs: 50, ...(corsOrigins ? { corsOrigins } : {}) });
  });
  afterAll(async () => {
    await pipeline.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
  });
  return {
    /** A browser's preflight of `op` from `origin`: the status and the CORS headers of the answer. */
    async preflight(op: Operation, origin: string) {
      // What a browser asks for: the key always, the JSON body's type on the methods that send one.
      const requested = op.method === 'GET' ? ['authorization'] : ['authorization', 'content-type'];
      const res = await fetch(`${pipeline.baseUrl}${concrete(op.path)}`, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': op.method, 'Access-Control-Request-Headers': requested.join(',') },
      });
      await res.arrayBuffer();
      return {
        requested,
        status: res.status,
        origin: res.headers.get('access-control-allow-origin'),
        methods: (res.headers.get('access-control-allow-methods') ?? '').split(/,\s*/),
        headers: (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/,\s*/),
        vary: res.headers.get('vary'),
      };
    },
    get baseUrl() {
      return pipeline.baseUrl;
    },
  };
}

describe('CORS of npm start, generated from the OpenAPI document', () => {
  it('finds the routes a browser library calls among the SDK-key routes, and the API-key routes apart', () => {
    expect(SDK_OPERATIONS.map((o) => `${o.method} ${o.path}`).sort()).toEqual(
      expect.arrayContaining(['POST /v1/action/sdk/pull', 'POST /v1/ingest/log', 'POST /v1/ingest/events', 'GET /v1/ingest/requests/{request_id}']),
    );
    expect(API_OPERATIONS.map((o) => `${o.method} ${o.path}`)).toEqual(expect.arrayContaining(['POST /v1/action/pull', 'POST /v1/actions']));
    expect(SDK_OPERATIONS.length).toBeGreaterThanOrEqual(8);
  });

  describe('with the default allow-list (*): any origin', () => {
    const h = corsHarness('cors-any');

    it.each(SDK_OPERATIONS)('$method $path answers a preflight from any origin', async (op) => {
      const p = await h.preflight(op, SHOP);
      expect([p.status, p.origin]).toEqual([204, '*']);
      expect(p.methods).toContain(op.method);
      expect(p.headers).toEqual(expect.arrayContaining(p.requested));
    });

    it.each(API_OPERATIONS)('$method $path (API key) answers no CORS at all', async (op) => {
      expect((await h.preflight(op, SHOP)).origin).toBeNull();
    });

    it('puts the CORS headers on the SDK pull’s answer itself, so the page can read its actions', async () => {
      const res = await fetch(`${h.baseUrl}/v1/action/sdk/pull`, {
        method: 'POST',
        headers: { Origin: SHOP, Authorization: `Bearer ${SDK_KEY}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(sdkPullBody),
      });
      expect([res.status, res.headers.get('access-control-allow-origin'), await res.json()]).toEqual([200, '*', { data: [], more: false }]);
    });
  });

  describe('with an allow-list of one origin (CORS_ORIGINS=https://shop.example)', () => {
    const h = corsHarness('cors-list', [SHOP]);

    it.each(SDK_OPERATIONS)('$method $path allows that origin by name, varying by Origin', async (op) => {
      const p = await h.preflight(op, SHOP);
      expect([p.status, p.origin, p.vary]).toEqual([204, SHOP, 'Origin']);
      expect(p.methods).toContain(op.method);
    });

    it.each(SDK_OPERATIONS)('$method $path gives another origin no CORS headers', async (op) => {
      const p = await h.preflight(op, OTHER);
      expect([p.origin, p.methods, p.headers]).toEqual([null, [''], ['']]);
    });
  });
});
