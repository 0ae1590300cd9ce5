import type { IncomingMessage, ServerResponse } from 'node:http';
import { closeServer, listen } from '@evp/http';

/**
 * A web app on an origin of its own (another port of 127.0.0.1), as a real site uses the platform:
 * its pages load `{platform}/sdk/web.js` from the platform and call `evp.init` with `apiUrl` on the
 * platform's origin, so every upload, beacon, verdict and action pull is a cross-origin request under
 * the platform's CORS. Every path below `prefix` serves the app's one document (an SPA) under a strict
 * content policy: scripts from the app and the platform only, nothing inline. Pages are `no-store`
 * (Chromium keeps such a page out of the back/forward cache) unless the URL has `cacheable=1`.
 */
export interface AppOrigin {
  /** `http://127.0.0.1:<port>`: the app's origin (not the platform's). */
  url: string;
  /** The page `path` (below the prefix) with init options merged over `defaults`. */
  pageUrl: (path: string, init?: Record<string, unknown>) => string;
  stop: () => Promise<void>;
}

export interface AppOriginOptions {
  /** The platform's base URL (where `/sdk/web.js` is served). */
  platform: string;
  /** The SDK key the page initialises with. */
  sdkKey: string;
  /** Pages live below this path (e.g. `/shop`). */
  prefix: string;
  /** Init options every page gets (a page's own options are merged over them). */
  defaults: Record<string, unknown>;
  /** Script run before init (the test's hooks on `evp`); it reads the page's options as `init`. */
  beforeInit?: string;
}

export async function startAppOrigin(o: AppOriginOptions): Promise<AppOrigin> {
  const csp = `default-src 'self'; script-src 'self' ${o.platform}; style-src 'self'; connect-src 'self' ${o.platform}`;
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://app');
    const init = url.searchParams.get('init') ?? '{}';
    if (url.pathname === `${o.prefix}/init.js`) {
      res.writeHead(200, { 'Content-Type': 'text/javascript' });
      res.end(initScript(o, init));
      return;
    }
    if (!url.pathname.startsWith(o.prefix)) {
      res.writeHead(404).end();
      return;
    }
    const cache = url.searchParams.get('cacheable') === '1' ? {} : { 'Cache-Control': 'no-store' };
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': csp, ...cache });
    res.end(`<!doctype html><html><head><meta charset="utf-8"><title>Shop</title>
<script src="${o.platform}/sdk/web.js"></script>
<script src="${o.prefix}/init.js?init=${encodeURIComponent(init)}"></script>
</head><body><h1>Shop</h1><button id="b">Buy</button></body></html>`);
  };
  const { server, port } = await listen(handler, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    pageUrl: (path, init = {}) => `${url}${o.prefix}${path}${path.includes('?') ? '&' : '?'}init=${encodeURIComponent(JSON.stringify(init))}`,
    stop: () => closeServer(server),
  };
}

function initScript(o: AppOriginOptions, init: string): string {
  return `(function () {
var init = ${JSON.stringify(init)};
init = JSON.parse(init);
${o.beforeInit ?? ''}
evp.init(Object.assign({ sdkKey: ${JSON.stringify(o.sdkKey)}, apiUrl: ${JSON.stringify(`${o.platform}/v1`)} }, ${JSON.stringify(o.defaults)}, init));
})();
`;
}
