import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Analytics, Logger } from '@evp/core';
import { shopDrugs } from './drugs';
import type { ConsoleBuild } from '@evp/console';
import { SHOP_ICON, shopHtml } from './shop-page';
import { demoUserToken } from './user-token';

/** Every path of the demo shop starts so (the shop is a single-page app below it). */
const DEMO_PREFIX = '/demo';

/** What the shop may load and call: only this origin, nothing inline (the library needs no more). */
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; frame-ancestors 'none'";

export const isDemoPath = (url: string | undefined): boolean => {
  const path = (url ?? '').split('?')[0] as string;
  return path === DEMO_PREFIX || path.startsWith(`${DEMO_PREFIX}/`);
};

/** The shop's built files, under their content-hashed names: cached for a year. */
const ASSETS = `${DEMO_PREFIX}/assets/`;

function send(res: ServerResponse, status: number, type: string, body: string, cacheControl = 'no-cache') {
  res.writeHead(status, {
    'Content-Type': `${type}; charset=utf-8`,
    'Content-Length': Buffer.byteLength(body),
    'Content-Security-Policy': CSP,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': cacheControl,
  });
  res.end(body);
}

/**
 * The demo shop of `npm start` (dev only, like the inspector's page it sits beside): the page, its
 * built script and style (`shop`: shop-page.ts's bundleShop), its config (the app's SDK key, public
 * by design), the app's drug catalog, and (`userTokenKey`) a user token for the signed-in shopper at
 * `/demo/user-token?user_id=` (user-token.ts).
 */
export function demoServer(deps: {
  analytics: Analytics;
  appId: string;
  sdkKey: string;
  logger: Logger;
  shop: ConsoleBuild;
  userTokenKey?: { kid: string; secret: string };
  now?: () => number;
}): RequestListener {
  const html = shopHtml({ script: `${ASSETS}${deps.shop.entries['shop.js']}`, style: `${ASSETS}${deps.shop.entries['shop.css']}` });
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0] as string;
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(res, 405, 'application/json', JSON.stringify({ error: { code: 'not_found', message: 'The demo answers GET only.' } }));
    if (path.startsWith(ASSETS)) {
      const file = deps.shop.files[path.slice(ASSETS.length)];
      if (file === undefined)
        return send(res, 404, 'application/json', JSON.stringify({ error: { code: 'not_found', message: 'No such file of the demo shop.' } }));
      return send(res, 200, path.endsWith('.css') ? 'text/css' : 'text/javascript', file, 'public, max-age=31536000, immutable');
    }
    if (path === `${DEMO_PREFIX}/icon.svg`) return send(res, 200, 'image/svg+xml', SHOP_ICON);
    if (path === `${DEMO_PREFIX}/config.json`) return send(res, 200, 'application/json', JSON.stringify({ sdkKey: deps.sdkKey, debug: false }));
    if (path === `${DEMO_PREFIX}/user-token` && deps.userTokenKey) {
      const userId = new URLSearchParams((req.url ?? '').split('?')[1] ?? '').get('user_id') ?? '';
      demoUserToken(deps.userTokenKey, deps.appId, userId, (deps.now ?? Date.now)()).then(
        (signed) =>
          signed
            ? send(res, 200, 'application/json', JSON.stringify(signed), 'no-store')
            : send(
                res,
                400,
                'application/json',
                JSON.stringify({ error: { code: 'invalid_request', message: 'user_id must be 1–128 letters, digits, . _ @ -', path: 'query.user_id' } }),
              ),
        (err: unknown) => {
          deps.logger.error({ err }, 'demo: a user token could not be signed');
          send(res, 500, 'application/json', JSON.stringify({ error: { code: 'internal', message: 'The token could not be signed.' } }));
        },
      );
      return;
    }
    if (path === `${DEMO_PREFIX}/drugs.json`) {
      shopDrugs(deps.analytics, deps.appId).then(
        (data) => send(res, 200, 'application/json', JSON.stringify({ data })),
        (err: unknown) => {
          deps.logger.warn({ err }, 'demo: the drug catalog could not be read');
          send(res, 503, 'application/json', JSON.stringify({ error: { code: 'unavailable', message: 'The drug catalog could not be read; retry.' } }));
        },
      );
      return;
    }
    // Every other path is a page of the single-page app: the same document.
    send(res, 200, 'text/html', html);
  };
}
