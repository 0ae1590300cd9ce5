/// <reference lib="dom" />
import { join } from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { requireProgram } from '@evp/testkit';

/**
 * Unit tests of the web library's browser modules in real Chromium (no DOM or IndexedDB
 * emulation): the IndexedDB store and the consent-held stores (src/browser/stores.ts), the device
 * id's locks (src/browser/device-id.ts), the
 * automatic events (src/browser/auto.ts, against a recording client) and the message renderer
 * (src/messages/render.ts). The modules are bundled with esbuild and run on a page of a routed
 * origin (IndexedDB needs one).
 */
const SRC = join(__dirname, '..', '..', '..', 'packages', 'web-sdk', 'src');
const ORIGIN = 'http://units.test';

type Units = typeof import('../../../packages/web-sdk/src/browser/stores') & {
  renderer: typeof import('../../../packages/web-sdk/src/messages/render').renderer;
  attach: typeof import('../../../packages/web-sdk/src/browser/auto').attach;
  oneDeviceId: typeof import('../../../packages/web-sdk/src/browser/device-id').oneDeviceId;
};
declare global {
  interface Window {
    u: Units;
    log: unknown[];
  }
}

describe('the web library’s browser modules in Chromium', () => {
  let browser: Browser;
  let code: string;
  beforeAll(async () => {
    const out = await build({
      stdin: {
        contents:
          "import * as stores from './browser/stores'; import { renderer } from './messages/render'; import { attach } from './browser/auto'; import { oneDeviceId } from './browser/device-id'; window.u = { ...stores, renderer, attach, oneDeviceId }; window.log = [];",
        resolveDir: SRC,
        loader: 'ts',
      },
      bundle: true,
      write: false,
      format: 'iife',
      target: 'es2020',
      logLevel: 'silent',
    });
    code = out.outputFiles[0]!.text;
    browser = await chromium.launch({ executablePath: requireProgram('chromium'), args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  }, 60_000);
  afterAll(() => browser?.close());

  /** A page of the routed origin (`https:` for what only a secure context has, Web Locks). */
  const page = async (html = '<title>Units</title><body><h1>Units</h1></body>', origin = ORIGIN): Promise<Page> => {
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    await p.route(`${origin}/**`, (r) => r.fulfill({ contentType: 'text/html', body: `<!doctype html><html><head>${html}</head></html>` }));
    await p.goto(`${origin}/start`);
    await p.addScriptTag({ content: code });
    return p;
  };

  describe('idbStore', () => {
    it('lists by prefix in key order (with a limit), writes puts and deletes in one transaction, and a second connection sees them', async () => {
      const p = await page();
      const got = await p.evaluate(async () => {
        const s = window.u.idbStore('evp:unit');
        await s.write(
          [
            ['b:2', { n: 2 }],
            ['b:1', { n: 1 }],
            ['a:1', 'other'],
            ['b:3', { n: 3 }],
          ],
          [],
        );
        await s.write([['b:4', { n: 4 }]], ['b:2']);
        const again = window.u.idbStore('evp:unit');
        return { all: await s.list('b:'), first2: await s.list('b:', 2), other: await again.list('a:'), dbs: (await indexedDB.databases()).map((d) => d.name) };
      });
      expect(got).toEqual({
        all: [
          ['b:1', { n: 1 }],
          ['b:3', { n: 3 }],
          ['b:4', { n: 4 }],
        ],
        first2: [
          ['b:1', { n: 1 }],
          ['b:3', { n: 3 }],
        ],
        other: [['a:1', 'other']],
        dbs: ['evp:unit'],
      });
      await p.context().close();
    });

    it('a write that fails (a value IndexedDB cannot clone) rejects and leaves nothing half written; fallbackStore then goes on in memory, warning once', async () => {
      const p = await page();
      const got = await p.evaluate(async () => {
        const s = window.u.idbStore('evp:unit2');
        let error = '';
        await s
          .write(
            [
              ['k:1', 1],
              ['k:2', () => 0],
            ],
            [],
          )
          .catch((e: unknown) => (error = (e as Error).name));
        const warned: string[] = [];
        const f = window.u.fallbackStore(s, (m) => void warned.push(m));
        await f.write([['k:3', () => 0]], []);
        await f.write([['k:4', 4]], []);
        return { error, stored: await s.list('k:'), fallback: (await f.list('k:')).map(([k]) => k), warned };
      });
      expect(got).toEqual({ error: 'DataCloneError', stored: [], fallback: ['k:3', 'k:4'], warned: ['IndexedDB failed: in memory'] });
      await p.context().close();
    });

    it('indexedDB.open throwing (SecurityError): the store is made at once, its calls reject, and fallbackStore goes on in memory, warning once', async () => {
      const p = await page();
      const got = await p.evaluate(async () => {
        IDBFactory.prototype.open = () => {
          throw new DOMException('denied', 'SecurityError');
        };
        const s = window.u.idbStore('evp:unit3');
        const error = await s.list('k:').then(
          () => '',
          (e: unknown) => (e as Error).name,
        );
        const warned: string[] = [];
        const f = window.u.fallbackStore(s, (m) => void warned.push(m));
        await f.write([['k:1', 1]], []);
        return { error, fallback: await f.list('k:'), warned };
      });
      expect(got).toEqual({ error: 'SecurityError', fallback: [['k:1', 1]], warned: ['IndexedDB failed: in memory'] });
      await p.context().close();
    });
  });

  it('heldStores: nothing reaches localStorage or IndexedDB until keep(); keep() moves what memory held (deletions too) and uses the device from then on', async () => {
    const p = await page();
    const got = await p.evaluate(async () => {
      localStorage.setItem('evp:x:old', '"stale"');
      const device = window.u.sharedStore();
      const h = window.u.heldStores(device, () => window.u.idbStore('evp:held'));
      h.shared.set('evp:x:d', 'anon:1');
      h.shared.del('evp:x:old');
      await h.store.write([['a:1', { kept: true }]], []);
      const before = { local: Object.keys(localStorage).sort(), idb: (await indexedDB.databases()).map((d) => d.name), read: h.shared.get('evp:x:d') };
      await h.keep();
      h.shared.set('evp:x:u', 'alice');
      return {
        before,
        local: Object.keys(localStorage).sort(),
        idb: (await indexedDB.databases()).map((d) => d.name),
        moved: await window.u.idbStore('evp:held').list('a:'),
      };
    });
    expect(got).toEqual({
      before: { local: ['evp:x:old'], idb: [], read: 'anon:1' },
      local: ['evp:x:d', 'evp:x:u'],
      idb: ['evp:held'],
      moved: [['a:1', { kept: true }]],
    });
    await p.context().close();
  });

  it('oneDeviceId: the tab holds a lock named after the id; a tab whose localStorage shows no id takes up the id a held lock names; without locks the id is made at once, no lock', async () => {
    const p = await page(undefined, ORIGIN.replace('http:', 'https:'));
    const got = await p.evaluate(async () => {
      const shared = window.u.sharedStore();
      let made = 0;
      // As the client does: the stored id, else a new one, stored; answers it.
      const make = (key: string) => () => {
        const id = shared.get<string>(key) ?? `anon:${++made}`;
        shared.set(key, id);
        return id;
      };
      const held = async () => (await navigator.locks.query()).held!.map((l) => l.name);
      await window.u.oneDeviceId('evp:x:d', shared, make('evp:x:d'), navigator.locks);
      const first = { stored: shared.get('evp:x:d'), held: await held() };
      // Another tab whose copy of localStorage does not show the id yet.
      localStorage.removeItem('evp:x:d');
      await window.u.oneDeviceId('evp:x:d', shared, make('evp:x:d'), navigator.locks);
      const second = { stored: shared.get('evp:x:d'), made, held: await held() };
      await window.u.oneDeviceId('evp:y:d', shared, make('evp:y:d'), undefined);
      return { first, second, third: { stored: shared.get('evp:y:d'), made, held: await held(), pending: (await navigator.locks.query()).pending } };
    });
    expect(got).toEqual({
      first: { stored: 'anon:1', held: ['evp:x:d:anon:1'] },
      second: { stored: 'anon:1', made: 1, held: ['evp:x:d:anon:1'] },
      third: { stored: 'anon:2', made: 2, held: ['evp:x:d:anon:1'], pending: [] },
    });
    await p.context().close();
  });

  describe('render', () => {
    /** Renders `view`, keeping a handle on its closed shadow root (the page itself gets none). */
    const show = (p: Page, view: { title: string; body: string; cta: string; close: string }) =>
      p.evaluate((v) => {
        const { attachShadow } = Object.getOwnPropertyDescriptors(Element.prototype);
        Element.prototype.attachShadow = function (this: Element, o: ShadowRootInit) {
          const r = (attachShadow.value as (o: ShadowRootInit) => ShadowRoot).call(this, o);
          (window as unknown as { root: ShadowRoot }).root = r;
          return r;
        };
        window.u.renderer.render(v, { open: () => void window.log.push('open'), discard: () => void window.log.push('discard') });
      }, view);
    /** What the dialog shows, as the closed root holds it. */
    const dialog = (p: Page) =>
      p.evaluate(() => {
        const r = (window as unknown as { root: ShadowRoot }).root;
        const box = r.querySelector('[role="dialog"]')!;
        const byId = (id: string | null) => (id ? r.getElementById(id)?.textContent : undefined);
        return {
          modal: box.getAttribute('aria-modal'),
          label: byId(box.getAttribute('aria-labelledby')),
          description: byId(box.getAttribute('aria-describedby')),
          markup: r.querySelectorAll('img, b').length,
          buttons: Array.from(r.querySelectorAll('button')).map((b) => b.getAttribute('aria-label') ?? b.textContent),
          focused: r.activeElement?.textContent,
          pageSees: document.querySelector('evp-message')?.shadowRoot ?? null,
        };
      });

    it('a modal dialog in a closed shadow root: text never markup, the app’s labels, focus on the call to action; Esc discards once and focus returns', async () => {
      const p = await page('<title>Units</title><body><button id="before">before</button></body>');
      await p.focus('#before');
      await show(p, { title: 'Your <b>refill</b>', body: '<img src=x onerror=alert(1)>', cta: 'Nachbestellen', close: 'Schließen' });
      expect(await dialog(p)).toEqual({
        modal: 'true',
        label: 'Your <b>refill</b>',
        description: '<img src=x onerror=alert(1)>',
        markup: 0,
        buttons: ['Schließen', 'Nachbestellen'],
        focused: 'Nachbestellen',
        pageSees: null,
      });
      await p.keyboard.press('Escape');
      await p.keyboard.press('Escape');
      expect(await p.evaluate(() => [window.log, document.querySelector('evp-message'), document.activeElement?.id])).toEqual([['discard'], null, 'before']);
      await p.context().close();
    });

    it('the call to action opens it (once), and the dialog is removed', async () => {
      const p = await page();
      await show(p, { title: 'T', body: 'B', cta: 'Open', close: 'Close' });
      await p.keyboard.press('Enter');
      await p.keyboard.press('Enter');
      expect(await p.evaluate(() => [window.log, document.querySelector('evp-message')])).toEqual([['open'], null]);
      await p.context().close();
    });
  });

  describe('attach (automatic events)', () => {
    /** A client that records what attach() asks of it. */
    const attached = (p: Page, cfg: Record<string, unknown> = {}) =>
      p.evaluate((o) => {
        let t = 1_000_000;
        const client = {
          cfg: { trackApp: true, trackPages: true, flushIntervalMs: 3_600_000, nudges: false, actionPollMs: 0, ...o },
          deps: { clock: { now: () => (t += 1000) } },
          consentKey: 'evp:x:c',
          record: (name: string, props: Record<string, unknown>) => void window.log.push([name, name === 'page' ? props.path : props.action]),
          leave: (fn: () => void) => {
            window.log.push('leave');
            fn();
          },
          flush: (unload?: boolean) => void window.log.push(unload ? 'flush unload' : 'flush'),
          consentChanged: () => void window.log.push('consent'),
          uploader: { retryNow: () => void window.log.push('retry') },
        };
        window.u.attach(client as never, () => void window.log.push('poll'));
      }, cfg);
    const log = (p: Page) => p.evaluate(() => window.log.splice(0));

    it('page views: a view per path change (pushState, back, a hash route), none for replaceState; each logged when it ends', async () => {
      const p = await page();
      await attached(p, { trackApp: false });
      await p.evaluate(() => {
        history.pushState({}, '', '/catalog');
        history.replaceState({}, '', '/catalog?sort=price');
        history.pushState({}, '', '/catalog#/cart');
      });
      await p.evaluate(() => history.back());
      await p.waitForFunction(() => location.hash === '');
      expect(await log(p)).toEqual([
        ['page', '/start'],
        ['page', '/catalog'],
        ['page', '/catalog#/cart'],
      ]);
      await p.context().close();
    });

    it('attach(start): the landing view counts from `start` (when init ran); what attach answers is the leave, for init to run when the page went away first', async () => {
      const p = await page();
      const got = await p.evaluate(() => {
        const now = 1_005_000;
        const client = {
          cfg: { trackApp: true, trackPages: true, flushIntervalMs: 3_600_000, nudges: false, actionPollMs: 0 },
          deps: { clock: { now: () => now } },
          consentKey: 'evp:x:c',
          record: (name: string, props: Record<string, unknown>) =>
            void window.log.push([name, name === 'page' ? `${String(props.path)} ${String(props.duration)}` : props.action]),
          leave: (fn: () => void) => {
            window.log.push('leave');
            fn();
          },
          flush: (unload?: boolean) => void window.log.push(unload ? 'flush unload' : 'flush'),
        };
        const away = window.u.attach(client as never, () => undefined, 1_000_000);
        away(true);
        return window.log.splice(0);
      });
      expect(got).toEqual(['leave', ['page', '/start 5'], ['app', 'close'], 'flush unload']);
      await p.context().close();
    });

    it('hidden: leave() logs app background and the current view, then an unload flush; visible: resume and a new view; pagehide: close; online: retry', async () => {
      const p = await page();
      await attached(p);
      await p.waitForFunction(() => window.log.some((x) => Array.isArray(x) && x[1] === 'open'));
      await log(p);
      const visibility = (state: string) =>
        p.evaluate((s) => {
          Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => s });
          document.dispatchEvent(new Event('visibilitychange'));
        }, state);
      await visibility('hidden');
      expect(await log(p)).toEqual(['leave', ['page', '/start'], ['app', 'background'], 'flush unload']);
      await visibility('visible');
      expect(await log(p)).toEqual([['app', 'resume'], 'poll']);
      await p.evaluate(() => dispatchEvent(new PageTransitionEvent('pagehide')));
      expect(await log(p)).toEqual(['leave', ['page', '/start'], ['app', 'close'], 'flush unload']);
      await p.evaluate(() => dispatchEvent(new Event('online')));
      await p.evaluate(() => dispatchEvent(new StorageEvent('storage', { key: 'evp:x:c' })));
      expect(await log(p)).toEqual(['retry', 'consent']);
      await p.context().close();
    });
  });
});
