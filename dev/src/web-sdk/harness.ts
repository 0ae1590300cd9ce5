/// <reference lib="dom" />
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createLogger } from '@evp/core';
import { requireProgram, uniqueName, waitFor } from '@evp/testkit';
import { bundleWebSdk, type WebSdkFiles } from '@evp/web-sdk/bundle';
import { createEmbeddedParts } from '../embedded-parts';
import { startPipeline, type RunningPipeline } from '../pipeline';
import { API_KEY, SDK_KEY, e2eKeys } from '../testing/scenario';

/** Where the test pages and the script build are served (by route interception, on the pipeline's own origin). */
export const SHOP = '/__web-sdk-test';

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
 * The real embedded pipeline (`npm start`'s composition, in process) and a headless Chromium whose
 * pages load the library's script build from the pipeline's origin, so uploads go to the real
 * gateway, validator and ClickHouse, and the tests read what landed through the inspector API.
 */
export function webSdkHarness(name: string) {
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database: uniqueName(name).replace(/-/g, '_') });
  let pipeline: RunningPipeline;
  let browser: Browser;
  let files: WebSdkFiles;
  const h = {
    get baseUrl() {
      return pipeline.baseUrl;
    },
    async start() {
      files = await bundleWebSdk();
      pipeline = await startPipeline({ parts, keys: e2eKeys(), logger: createLogger(name, 'silent'), sinkFlushMs: 50 });
      browser = await chromium.launch({ executablePath: requireProgram('chromium'), args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    },
    async stop() {
      await browser?.close();
      await pipeline?.stop();
      await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
    },
    /** A fresh browser profile (its own IndexedDB and localStorage) serving the shop pages. */
    async context(): Promise<BrowserContext> {
      const ctx = await browser.newContext();
      await ctx.route(`${pipeline.baseUrl}${SHOP}/**`, async (route) => {
        const url = new URL(route.request().url());
        const path = url.pathname.slice(SHOP.length + 1);
        if (path === 'web.js' || path === 'web-messages.js') return route.fulfill({ contentType: 'text/javascript', body: files[path] });
        if (path === 'init.js') return route.fulfill({ contentType: 'text/javascript', body: initScript(url.searchParams.get('init') ?? '{}') });
        // Any other path is an app page (an SPA: every path serves the same document), under a strict
        // CSP: scripts and styles from this origin only, no inline script or style.
        return route.fulfill({ contentType: 'text/html', headers: { 'Content-Security-Policy': CSP }, body: page(url.searchParams.get('init') ?? '{}') });
      });
      return ctx;
    },
    /** Opens `path` of the shop with init options (JSON) merged over the defaults. */
    async open(ctx: BrowserContext, path: string, init: Record<string, unknown> = {}): Promise<Page> {
      const p = await ctx.newPage();
      await p.goto(`${pipeline.baseUrl}${SHOP}${path}?init=${encodeURIComponent(JSON.stringify(init))}`);
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

/** The test pages' policy: nothing inline, nothing from elsewhere (what a strict app ships). */
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'";

/** The test app's one document: the script build, then init with the test's options (no inline script: CSP). */
function page(init: string): string {
  return `<!doctype html><html><head><title>Shop</title>
<script src="${SHOP}/web.js"></script>
<script src="${SHOP}/init.js?init=${encodeURIComponent(init)}"></script>
</head><body><h1>Shop</h1><button id="b">Buy</button></body></html>`;
}

function initScript(init: string): string {
  return `window.__actions = []; window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
evp.onAction((e) => window.__actions.push({ cta_type: e.cta_type, cta_id: e.cta_id }));
window.__early = ${JSON.stringify(init)}.includes('"early"') ? evp.identify('login', JSON.parse(${JSON.stringify(init)}).early).then(() => evp.trackCustom('before_init', { n: 1 })) : undefined;
evp.init(Object.assign({ sdkKey: ${JSON.stringify(SDK_KEY)}, apiUrl: location.origin + '/v1', appId: 'e2e-shop', appVersion: '1.0.0 (1)', flushIntervalMs: 300, nudges: false }, ${init}));
`;
}
