/// <reference lib="dom" />
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createLogger, type KeyRing } from '@evp/core';
import { requireProgram, uniqueName, waitFor } from '@evp/testkit';
import { createEmbeddedParts } from '../embedded-parts';
import { startPipeline, type RunningPipeline } from '../pipeline';
import { startAppOrigin, type AppOrigin } from '../testing/app-origin';
import { API_KEY, SDK_KEY, e2eKeys } from '../testing/scenario';

/** Where the test app's pages live on its own origin. */
export const SHOP = '/shop';

type Evp = { evp: Record<string, (...a: unknown[]) => Promise<unknown>> };
/** Calls `evp.<fn>(...args)` in the page and answers what its promise resolves to. */
export const call = (p: Page, fn: string, ...args: unknown[]) => p.evaluate(([f, a]) => (window as unknown as Evp).evp[f]!(...a), [fn, args] as const);
/** A user id of its own for each test (the pipeline is shared by a file's tests). */
export const uid = (s: string) => `${s}-${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
/** One `search` event. */
export const search = (p: Page, query: string) => call(p, 'track', 'search', { query, module: 'e_commerce', results_list: [] });
/** Init options of a page that logs only what the test does and uploads only when it flushes. */
export const quiet = { trackApp: false, trackPages: false, flushIntervalMs: 3_600_000 };

/** The CORS headers the platform answers a page of another origin with (packages/http/src/cors.ts): a test's own answer needs them too. */
export const PLATFORM_CORS = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': 'X-Request-Id, Retry-After, Date' };

export interface StoredEvent {
  event_id: string;
  user_id: string;
  name: string;
  property: string;
  request_id: string;
  props: Record<string, unknown>;
  meta: unknown;
  warnings: { rule: string }[];
}

/**
 * The real embedded pipeline (`npm start`'s composition, in process), a web app on another origin
 * (dev/src/testing/app-origin.ts) whose pages load the script build from the platform, and a
 * headless Chromium: uploads, beacons, verdicts and action pulls are cross-origin requests to the
 * real gateway, validator, action store and ClickHouse, as from a real site; the tests read what
 * landed through the inspector API.
 */
export function webSdkHarness(name: string, o: { keys?: () => KeyRing } = {}) {
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database: uniqueName(name).replace(/-/g, '_') });
  let pipeline: RunningPipeline;
  let browser: Browser;
  let app: AppOrigin;
  const h = {
    /** The platform's base URL. */
    get baseUrl() {
      return pipeline.baseUrl;
    },
    /** The app's origin (another port: every request to the platform is cross-origin). */
    get appUrl() {
      return app.url;
    },
    async start() {
      pipeline = await startPipeline({ parts, keys: (o.keys ?? e2eKeys)(), logger: createLogger(name, 'silent'), sinkFlushMs: 50 });
      app = await startAppOrigin({
        platform: pipeline.baseUrl,
        sdkKey: SDK_KEY,
        prefix: SHOP,
        // The tests' Chromium is automated (navigator.webdriver): it opts out of the bot filter.
        defaults: { appId: 'e2e-shop', appVersion: '1.0.0 (1)', flushIntervalMs: 300, nudges: false, filterBots: false },
        beforeInit: BEFORE_INIT,
      });
      browser = await chromium.launch({ executablePath: requireProgram('chromium'), args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    },
    async stop() {
      await browser?.close();
      await app?.stop();
      await pipeline?.stop();
      await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
    },
    /** The URL of the app's page `path` with init options (JSON) merged over the defaults. */
    pageUrl(path: string, init: Record<string, unknown> = {}): string {
      return app.pageUrl(path, init);
    },
    /** The Chromium the pages run in. */
    browser: () => browser,
    /** A fresh browser profile (its own IndexedDB and localStorage). */
    async context(): Promise<BrowserContext> {
      return browser.newContext();
    },
    /** Opens `path` of the app with init options (JSON) merged over the defaults. */
    async open(ctx: BrowserContext, path: string, init: Record<string, unknown> = {}): Promise<Page> {
      const p = await ctx.newPage();
      await p.goto(app.pageUrl(path, init));
      await p.waitForFunction(() => typeof (window as { evp?: unknown }).evp === 'object');
      return p;
    },
    /** The app's stored events for a user (the inspector API, deduplicated by event id), oldest first. */
    async events(user: string, name?: string): Promise<StoredEvent[]> {
      const q = new URLSearchParams({ user_id: user, limit: '1000', ...(name ? { name } : {}) });
      const res = await fetch(`${pipeline.baseUrl}/v1/inspect/events?${q.toString()}`, { headers: { Authorization: `Bearer ${API_KEY}` } });
      const body = (await res.json()) as { data: StoredEvent[] };
      return [...body.data].reverse();
    },
    /** An upload's verdicts once complete (`GET /v1/ingest/requests/{id}`, SDK key). */
    async verdict(requestId: string): Promise<{ events: { user_id: string; name: string; status: string; reasons?: { rule: string }[] }[] }> {
      return waitFor(
        async () => {
          const res = await fetch(`${pipeline.baseUrl}/v1/ingest/requests/${requestId}`, { headers: { Authorization: `Bearer ${SDK_KEY}` } });
          const body = (await res.json()) as { status?: string; events: { user_id: string; name: string; status: string }[] };
          return body.status === 'complete' ? body : undefined;
        },
        { timeoutMs: 30_000, what: `request ${requestId} to be validated` },
      );
    },
    /** Waits until `count` events (of `name`) of `user` are stored, and answers them. */
    async waitForEvents(user: string, count: number, name?: string, timeoutMs = 30_000): Promise<StoredEvent[]> {
      return waitFor(
        async () => {
          const e = await h.events(user, name);
          return e.length >= count ? e : undefined;
        },
        { timeoutMs, what: `${count} ${name ?? ''} events of ${user}` },
      );
    },
  };
  return h;
}

/**
 * The test app's hooks, run before init: what the app's action handler got, CSP violations,
 * (option `early`) calls made before init, and (option `captureBeacons`) the bodies of beacons.
 */
const BEFORE_INIT = `window.__actions = []; window.__csp = [];
document.addEventListener('securitypolicyviolation', function (e) { window.__csp.push(e.violatedDirective + ' ' + e.blockedURI); });
evp.onAction(function (e) { window.__actions.push({ cta_type: e.cta_type, cta_id: e.cta_id }); });
window.__beacons = [];
if (init.captureBeacons) {
  var send = navigator.sendBeacon.bind(navigator);
  navigator.sendBeacon = function (url, data) { window.__beacons.push(data.text()); return send(url, data); };
}
window.__early = init.early ? evp.identify('login', init.early).then(function () { return evp.trackCustom('before_init', { n: 1 }); }) : undefined;`;
