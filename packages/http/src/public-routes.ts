/**
 * The one route table of the public base URL: which path belongs to which service. The SDKs are
 * configured with a single API URL and send uploads and their action fetch to it (docs/api.md
 * "Paths the real clients call"), so `npm start` dispatches by this table in-process
 * (packages/http/src/edge.ts) and docker-compose's nginx routes the same paths to each service's
 * own port (deploy/edge/nginx.conf, checked against this table by dev/src/edge-nginx.test.ts).
 *
 * Matching follows nginx: an `exact` path matches only itself; a `prefix` matches every path that
 * starts with it. Prefixes end with `/` so that `/v1/actions` never claims `/v1/actionsfoo`.
 * A path no entry matches is answered 404 in the JSON error shape by the edge itself.
 */
export type PublicService = 'gateway' | 'action-store' | 'segmenter';

export interface PublicRoute {
  match: 'exact' | 'prefix';
  path: string;
  service: PublicService;
  /** What lives there, for docs and test names. */
  serves: string;
}

export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  // /v1/ingest/log, /v1/ingest/events, /v1/ingest/catalog/{kind}, and the clients' other upload
  // paths: the current iOS client's /v1/ingest/dimensions, the 1.x clients' /v1/ingest/sdk/crash.
  { match: 'prefix', path: '/v1/ingest/', service: 'gateway', serves: 'SDK uploads (events, catalog)' },
  // What became of an upload: read from the receipts in ClickHouse (the longer prefix wins).
  { match: 'prefix', path: '/v1/ingest/requests/', service: 'segmenter', serves: 'per-request verdicts' },
  { match: 'prefix', path: '/v1/inspect/', service: 'segmenter', serves: 'the inspector API' },
  { match: 'exact', path: '/inspector', service: 'segmenter', serves: 'the inspector page' },
  { match: 'exact', path: '/console', service: 'segmenter', serves: 'the console (redirects to its Campaigns page)' },
  {
    match: 'prefix',
    path: '/console/',
    service: 'segmenter',
    serves: 'the console’s pages, its build’s scripts and styles (/console/assets/), the chart library',
  },
  { match: 'exact', path: '/v1/segments', service: 'segmenter', serves: 'segment creation and list' },
  { match: 'prefix', path: '/v1/segments/', service: 'segmenter', serves: 'segments, their preview and members' },
  { match: 'prefix', path: '/v1/users/', service: 'segmenter', serves: 'a user’s segments' },
  { match: 'exact', path: '/v1/keys', service: 'segmenter', serves: 'the app’s keys, with their last use' },
  { match: 'exact', path: '/v1/keys/user-tokens', service: 'segmenter', serves: 'the app’s user token policy, signing keys and last hour’s outcomes' },
  { match: 'exact', path: '/v1/audit/reads', service: 'segmenter', serves: 'the app’s access log of reads' },
  { match: 'exact', path: '/v1/audit/verify', service: 'segmenter', serves: 'whether the app’s access log chain holds' },
  { match: 'prefix', path: '/v1/privacy/', service: 'segmenter', serves: 'erasure and export of a person’s data, suppressions' },
  { match: 'exact', path: '/console/keys', service: 'segmenter', serves: 'the console’s Keys page' },
  { match: 'exact', path: '/v1/campaigns', service: 'segmenter', serves: 'campaign creation and list' },
  { match: 'prefix', path: '/v1/campaigns/', service: 'segmenter', serves: 'campaigns, their states, preview, settings, trigger and report' },
  // The web library's script build (<script src="{base}/sdk/web.js">): served by the gateway, which
  // SDKs already reach.
  { match: 'prefix', path: '/sdk/', service: 'gateway', serves: 'the web library’s script build' },
  // The synthetic data generator posts server-side imports under the bare base URL, without /v1.
  { match: 'prefix', path: '/data/ingest/', service: 'gateway', serves: 'server-side import (generator)' },
  // /v1/action/pull (API key) and /v1/action/sdk/pull (SDK key, the current client's fetch).
  { match: 'prefix', path: '/v1/action/', service: 'action-store', serves: 'action pulls' },
  { match: 'exact', path: '/v1/actions', service: 'action-store', serves: 'action creation' },
  { match: 'prefix', path: '/v1/actions/', service: 'action-store', serves: 'action stats and unblock' },
  // The 1.x clients' single-user fetch (GET /v1/nudge/sdk/{user_id}) and the generator's
  // (GET /nudge/sdk/get): the action store's to answer.
  { match: 'prefix', path: '/v1/nudge/', service: 'action-store', serves: 'older clients’ action fetch' },
  { match: 'prefix', path: '/nudge/', service: 'action-store', serves: 'generator’s action fetch' },
];

/**
 * Paths the edge answers itself, from every part at once: health, readiness and metrics of every
 * part, and the OpenAPI document of every public route (which no single service may build, since
 * services never import each other: dev/src/openapi.ts assembles it; nginx serves docs/openapi.json).
 */
export const EDGE_PATHS = ['/healthz', '/readyz', '/metrics', '/openapi.json'] as const;

/** The service a request path belongs to (query string ignored), or undefined for the edge's 404. */
export function serviceForPath(url: string): PublicService | undefined {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  let best: PublicRoute | undefined;
  for (const r of PUBLIC_ROUTES) {
    if (r.match === 'exact' ? path === r.path : path.startsWith(r.path)) {
      if (r.match === 'exact') return r.service;
      if (!best || r.path.length > best.path.length) best = r;
    }
  }
  return best?.service;
}
