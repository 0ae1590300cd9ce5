/// <reference lib="dom" />
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { waitFor } from '@evp/testkit';
import { API_KEY, SDK_KEY } from '../testing/scenario';
import { PLATFORM_CORS, SHOP, call, quiet, search, uid, webSdkHarness } from './harness';

/**
 * The web library in Chromium against the real embedded pipeline: what a page does with the
 * library, asserted by what the platform stored (the inspector API) and by the requests it saw.
 */
type Evp = { evp: Record<string, (...a: unknown[]) => Promise<unknown>> };
const ingestBodies = (requests: Request[]) =>
  requests.filter((r) => r.method() === 'POST' && r.url().endsWith('/v1/ingest/log')).map((r) => r.postData() ?? '');

describe('the web library in Chromium', () => {
  const h = webSdkHarness('websdk');
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  it('SPA navigation: page events per path change (not for replaceState), with durations and render times; app open with the time to first render', async () => {
    const ctx = await h.context();
    const bodies = posted(ctx, undefined, 'requestfinished');
    const p = await h.open(ctx, '/home');
    const user = uid('spa');
    await call(p, 'identify', 'login', user);
    await p.evaluate(() => history.pushState({}, '', '/catalog'));
    await p.waitForTimeout(300);
    // A router rewriting the query in place: the same path, no new view.
    await p.evaluate(() => history.replaceState({}, '', '/catalog?sort=price'));
    await p.evaluate(() => history.pushState({}, '', '/product/42'));
    await p.evaluate(() => history.back());
    await p.waitForFunction(() => location.pathname === '/catalog');
    await p.evaluate(() => history.pushState({}, '', '/cart'));
    await call(p, 'flush');
    // Each view is logged when it ends (its duration known then): the landing page, under the user
    // who was logged in by then, and three SPA views; /cart is still on screen.
    const pages = await h.waitForEvents(user, 4, 'page');
    expect(pages.map((e) => e.props.path)).toEqual([`${SHOP}/home`, '/catalog', '/product/42', '/catalog']);
    expect(pages.map((e) => e.property)).toEqual([`${SHOP}/home`, '/catalog', '/product/42', '/catalog']);
    expect(pages[1]!.props.duration as number).toBeGreaterThanOrEqual(0.3);
    // render_time (spec 6: INT ms): the landing page's is its first contentful paint (> 0); an SPA
    // view's is measured from its route change to the next paint, an integer that fits in its view.
    expect(pages[0]!.props.render_time as number).toBeGreaterThan(0);
    for (const e of pages) {
      expect(Number.isInteger(e.props.render_time)).toBe(true);
      expect(e.props.render_time as number).toBeGreaterThanOrEqual(0);
      expect(e.props.render_time as number).toBeLessThanOrEqual(Math.max(1000, (e.props.duration as number) * 1000 + 1000));
      expect(e.warnings).toEqual([]);
    }
    // App open is logged after the first paint, which a loaded machine may delay past the flush above.
    const sentOpens = () =>
      bodies
        .flatMap((b) => [JSON.parse(b)].flat() as { data: { name: string; ctx: { action?: string; start_time?: number } }[] }[])
        .flatMap((e) => e.data.filter((x) => x.name === 'app' && x.ctx.action === 'open'));
    const opens = await waitFor(
      async () => {
        await call(p, 'flush');
        return sentOpens().length > 0 ? sentOpens() : undefined;
      },
      { timeoutMs: 30_000, what: 'app open' },
    );
    expect(opens).toHaveLength(1);
    expect(opens[0]!.ctx.start_time).toBeGreaterThan(0);
    await ctx.close();
  });

  it('identify and logout: events after login are the user’s, after logout the anonymous device’s, each in its own session', async () => {
    const ctx = await h.context();
    const seen: Request[] = [];
    ctx.on('request', (r) => seen.push(r));
    const p = await h.open(ctx, '/', { trackApp: false, trackPages: false });
    const user = uid('id');
    await call(p, 'identify', 'login', user, { name: 'Amina', country: 'Kenya' });
    await call(p, 'track', 'search', { query: 'paracetamol', module: 'e_commerce', results_list: [] });
    await call(p, 'identify', 'logout', user);
    await call(p, 'track', 'search', { query: 'ibuprofen', module: 'e_commerce', results_list: [] });
    await call(p, 'flush');
    const mine = await h.waitForEvents(user, 3);
    expect(mine.map((e) => [e.name, e.property])).toEqual([
      ['identify', 'login'],
      ['search', 'paracetamol'],
      ['identify', 'logout'],
    ]);
    const envs = ingestBodies(seen).flatMap((b) => [JSON.parse(b)].flat() as { id: string; internal: { s_id: string } }[]);
    const anon = envs.find((e) => e.id !== user)!;
    expect(anon.id).not.toBe(user);
    const after = await h.waitForEvents(anon.id, 1, 'search');
    expect(after.map((e) => e.property)).toEqual(['ibuprofen']);
    expect(anon.internal.s_id.startsWith(`${anon.id}_`)).toBe(true);
    const catalog = seen
      .filter((r) => r.method() === 'POST' && r.url().endsWith('/v1/ingest/catalog/user'))
      .map((r) => JSON.parse(r.postData() ?? '[]') as object[]);
    expect(catalog).toEqual([[expect.objectContaining({ id: user, name: 'Amina', country: 'Kenya' })]]);
    await ctx.close();
  });
  const envelopesOf = (body: string) =>
    [JSON.parse(body)].flat() as { sent_at: string; id: string; internal: { s_id: string }; data: { name: string; ctx: { query?: string } }[] }[];
  /** The bodies of the POSTs the context makes to ingest routes (`log` unless `path` says otherwise), as they start or (`requestfinished`) once answered. */
  const posted = (ctx: BrowserContext, path = '/v1/ingest/log', event: 'request' | 'requestfinished' = 'request') => {
    const bodies: string[] = [];
    const seen = (r: Request) => {
      if (r.method() === 'POST' && (path.endsWith('/') ? r.url().includes(path) : r.url().endsWith(path))) bodies.push(r.postData() ?? '');
    };
    if (event === 'request') ctx.on('request', seen);
    else ctx.on('requestfinished', seen);
    return bodies;
  };
  const withoutSentAt = (body: string) => body.replace(/"sent_at":"[^"]*",/g, '');
  /** One one-off in-app message for `user`, created with the API key (docs/actions.md). */
  const createAction = async (user: string, actionId: number, content: { title: string; body: string }, attr: Record<string, string> = {}) => {
    const res = await fetch(`${h.baseUrl}/v1/actions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${API_KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify([
        {
          user_id: user,
          type: 'message',
          render_method: 'in_app_message',
          delivery_mode: 'one-off',
          content,
          attr: { ...attr, cta_type: 'redirect', cta_id: 'drug-42' },
          expired_at: '2099-01-01T00:00:00Z',
          inv_id: 1,
          action_id: actionId,
        },
      ]),
    });
    expect(res.status).toBe(200);
  };
  /** The action's response counts, once `done` holds for them. */
  const actionStats = (actionId: number, done: (r: Record<string, number>) => boolean) =>
    waitFor(
      async () => {
        const res = await fetch(`${h.baseUrl}/v1/actions/${actionId}/stats`, { headers: { Authorization: `Bearer ${API_KEY}` } });
        const body = (await res.json()) as { totals?: { responses: Record<string, number> } };
        return body.totals && done(body.totals.responses) ? body.totals.responses : undefined;
      },
      { timeoutMs: 30_000, what: `the stats of action ${actionId}` },
    );

  it('offline, then online: events recorded offline (marked so) arrive once the browser is back', async () => {
    const ctx = await h.context();
    // Answered requests only (the attempts while offline fail).
    const bodies = posted(ctx, undefined, 'requestfinished');
    const p = await h.open(ctx, '/', quiet);
    const user = uid('offline');
    await call(p, 'identify', 'login', user);
    await ctx.setOffline(true);
    await search(p, 'while offline 1');
    await search(p, 'while offline 2');
    await call(p, 'flush');
    expect(await p.evaluate(() => (window as unknown as Evp).evp.status!())).toMatchObject({ uploads: 'backoff' });
    await ctx.setOffline(false);
    const got = await h.waitForEvents(user, 2, 'search');
    expect(got.map((e) => e.property)).toEqual(['while offline 1', 'while offline 2']);
    // The browser reports a finished request a little after the platform stored what it carried.
    const sent = await waitFor(
      () => {
        const searches = bodies
          .flatMap(envelopesOf)
          .flatMap((e) => e.data as { name: string; __ol?: boolean }[])
          .filter((d) => d.name === 'search');
        return searches.length >= 2 ? searches : undefined;
      },
      { timeoutMs: 10_000, what: 'the upload of the two searches, as the browser reports it' },
    );
    expect(sent.map((d) => d.__ol)).toEqual([false, false]);
    await ctx.close();
  });

  it('a tab closed while its batch was in flight: the batch arrives on the next visit, once', async () => {
    const ctx = await h.context();
    const bodies: string[] = [];
    let delivered!: () => void;
    const inFlight = new Promise<void>((r) => (delivered = r));
    await ctx.route('**/v1/ingest/log', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      bodies.push(route.request().postData() ?? '');
      if (bodies.length === 1) {
        // The platform stores it, but the tab is gone before the answer is read.
        await route.fetch();
        delivered();
        return;
      }
      await route.continue();
    });
    const user = uid('closed');
    const p = await h.open(ctx, '/', quiet);
    await call(p, 'identify', 'login', user);
    for (const q of ['a', 'b', 'c']) await search(p, q);
    void call(p, 'flush').catch(() => undefined);
    await inFlight;
    await p.close();
    const next = await h.open(ctx, '/', quiet);
    await call(next, 'flush');
    const got = await h.waitForEvents(user, 3, 'search');
    expect(got.map((e) => e.property)).toEqual(['a', 'b', 'c']);
    // The same frozen batch went out twice, byte for byte but for sent_at; the platform kept it once.
    expect(bodies.length).toBeGreaterThanOrEqual(2);
    expect(withoutSentAt(bodies[1]!)).toBe(withoutSentAt(bodies[0]!));
    await ctx.close();
  });

  it('503 with Retry-After: the same batch again after the wait, stored once', async () => {
    const ctx = await h.context();
    const sent: { at: number; body: string }[] = [];
    await ctx.route('**/v1/ingest/log', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      sent.push({ at: Date.now(), body: route.request().postData() ?? '' });
      if (sent.length === 1) {
        return route.fulfill({
          status: 503,
          headers: { ...PLATFORM_CORS, 'Retry-After': '2' },
          contentType: 'application/json',
          body: '{"error":{"code":"unavailable"}}',
        });
      }
      return route.continue();
    });
    const user = uid('retry');
    const p = await h.open(ctx, '/', quiet);
    await call(p, 'identify', 'login', user);
    await search(p, 'retried');
    await call(p, 'flush');
    const got = await h.waitForEvents(user, 2);
    expect(got.map((e) => e.name)).toEqual(['identify', 'search']);
    // Nothing leaves during the wait. On a loaded machine identify and search may be frozen in two
    // batches (the second held back by the wait), so the refused batch is found by its bytes: it is
    // sent again exactly once, byte-identical but for sent_at.
    expect(sent.slice(1).map((s) => s.at - sent[0]!.at >= 2_000)).toEqual(sent.slice(1).map(() => true));
    const again = sent.slice(1).filter((s) => withoutSentAt(s.body) === withoutSentAt(sent[0]!.body));
    expect(again).toHaveLength(1);
    expect(sent.length).toBeLessThanOrEqual(3);
    expect(envelopesOf(again[0]!.body)[0]!.sent_at > envelopesOf(sent[0]!.body)[0]!.sent_at).toBe(true);
    await ctx.close();
  });

  it('413: the batch is split until the halves fit, every event stored once', async () => {
    const ctx = await h.context();
    const sizes: number[] = [];
    await ctx.route('**/v1/ingest/log', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      const n = envelopesOf(route.request().postData() ?? '[]').reduce((a, e) => a + e.data.length, 0);
      sizes.push(n);
      if (n > 2) return route.fulfill({ status: 413, headers: PLATFORM_CORS, contentType: 'application/json', body: '{"error":{"code":"payload_too_large"}}' });
      return route.continue();
    });
    const user = uid('split');
    const p = await h.open(ctx, '/', quiet);
    // All five in one turn of the page's event loop, so they wait in one queue for the flush.
    await p.evaluate((u) => {
      const evp = (window as unknown as Evp).evp;
      void evp.identify!('login', u);
      for (const query of ['1', '2', '3', '4']) void evp.track!('search', { query, module: 'e_commerce', results_list: [] });
      return evp.flush!();
    }, user);
    const got = await h.waitForEvents(user, 4, 'search');
    // Tracked in one millisecond, so their stored times tie: compared as a set, each once.
    expect(got.map((e) => e.property).sort()).toEqual(['1', '2', '3', '4']);
    // identify + 4 searches = 5 → 3 + 2 → (2 + 1) + 2: [5, 3, 2, 1, 2]. On a loaded machine identify
    // may leave on its own first ([1, 4, 2, 2]): either way each batch the page sent is split depth
    // first until the halves fit, and those batches hold the five events once.
    const split = (n: number): number[] => (n <= 2 ? [n] : [n, ...split(Math.ceil(n / 2)), ...split(Math.floor(n / 2))]);
    const sentByPage: number[] = [];
    for (let i = 0; i < sizes.length; i += split(sizes[i]!).length) {
      expect(sizes.slice(i, i + split(sizes[i]!).length)).toEqual(split(sizes[i]!));
      sentByPage.push(sizes[i]!);
    }
    expect(sentByPage.reduce((x, y) => x + y, 0)).toBe(5);
    expect(sizes.some((n) => n > 2)).toBe(true);
    await ctx.close();
  });

  it('two tabs share one session', async () => {
    const ctx = await h.context();
    const bodies = posted(ctx);
    const user = uid('tabs');
    const tab1 = await h.open(ctx, '/', quiet);
    await call(tab1, 'identify', 'login', user);
    const tab2 = await h.open(ctx, '/other', quiet);
    await search(tab1, 'tab 1');
    await search(tab2, 'tab 2');
    await call(tab1, 'flush');
    await call(tab2, 'flush');
    const got = await h.waitForEvents(user, 2, 'search');
    expect(got.map((e) => e.property).sort()).toEqual(['tab 1', 'tab 2']);
    const starts = new Set(bodies.flatMap(envelopesOf).map((e) => e.internal.s_id.split('_').slice(-2, -1)[0]));
    expect(starts.size).toBe(1);
    await ctx.close();
  });

  it('consent pending → granted: held events arrive; pending → denied: nothing is sent or kept', async () => {
    const ctx = await h.context();
    const bodies = posted(ctx, '/v1/ingest/');
    const granted = uid('granted');
    const p = await h.open(ctx, '/', { ...quiet, consent: 'pending' });
    await call(p, 'identify', 'login', granted);
    await search(p, 'before consent');
    await call(p, 'flush');
    expect(bodies).toEqual([]);
    await call(p, 'setConsent', 'granted');
    const got = await h.waitForEvents(granted, 2);
    expect(got.map((e) => [e.name, e.property])).toEqual([
      ['identify', 'login'],
      ['search', 'before consent'],
    ]);

    const ctx2 = await h.context();
    const bodies2 = posted(ctx2, '/v1/ingest/');
    const denied = uid('denied');
    const q = await h.open(ctx2, '/', { ...quiet, consent: 'pending' });
    await call(q, 'identify', 'login', denied);
    await search(q, 'never sent');
    await call(q, 'setConsent', 'denied');
    await search(q, 'after denial');
    await call(q, 'flush');
    // Reloaded: the choice is remembered, nothing was stored to send later.
    await q.reload();
    await q.waitForFunction(() => typeof (window as { evp?: unknown }).evp === 'object');
    await call(q, 'flush');
    expect(bodies2).toEqual([]);
    expect(await q.evaluate(() => (window as unknown as Evp).evp.status!())).toMatchObject({ consent: 'denied' });
    await ctx.close();
    await ctx2.close();
  });

  it('pull → in-app message shown (closed shadow root, strict CSP) → clicked → open counted in the action’s stats, the app gets the CTA', async () => {
    const user = uid('nudge');
    const actionId = Math.floor(Math.random() * 1e9);
    await createAction(user, actionId, { title: 'Your cart', body: '<img src=x onerror=alert(1)> 10% off today' }, { screen: 'cart' });
    const ctx = await h.context();
    const p = await h.open(ctx, '/cart', { ...quiet, nudges: true, autoShowInAppMessages: false });
    const dialogs: string[] = [];
    p.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await call(p, 'identify', 'login', user);
    // Rule 1: auto-show is off, so nothing appears until the app asks for the screen.
    expect(await p.locator('evp-message').count()).toBe(0);
    expect(await call(p, 'showInAppMessage', 'cart')).toBe(true);
    await p.locator('evp-message').waitFor();
    // Closed shadow root: the page cannot reach the content; the markup in the body is text, not HTML.
    expect(await p.evaluate(() => document.querySelector('evp-message')!.shadowRoot)).toBeNull();
    await p.keyboard.press('Enter');
    await p.locator('evp-message').waitFor({ state: 'detached' });
    expect(await p.evaluate(() => (window as unknown as { __actions: unknown[] }).__actions)).toEqual([{ cta_type: 'redirect', cta_id: 'drug-42' }]);
    expect(await p.evaluate(() => (window as unknown as { __csp: string[] }).__csp)).toEqual([]);
    // The body's markup stayed text: no element was made from it, so its onerror never ran.
    expect(dialogs).toEqual([]);
    await call(p, 'flush');
    const stats = await actionStats(actionId, (r) => r.open === 1);
    expect(stats).toMatchObject({ shown: 1, open: 1, discard: 0, error: 0 });
    const responses = await h.waitForEvents(user, 2, 'nudge_response');
    expect(responses.map((e) => e.props.response)).toEqual(['shown', 'open']);
    expect(responses.every((e) => e.warnings.length === 0)).toBe(true);
    await ctx.close();
  });
  it('auto-show: a pulled message appears on login, takes the focus, Esc discards it (counted), focus returns', async () => {
    const user = uid('auto');
    const actionId = Math.floor(Math.random() * 1e9);
    await createAction(user, actionId, { title: 'Welcome back', body: 'Your refill is ready' });
    const ctx = await h.context();
    const p = await h.open(ctx, '/', { ...quiet, nudges: true });
    await p.focus('#b');
    await call(p, 'identify', 'login', user);
    await p.locator('evp-message').waitFor();
    // The dialog holds the focus (inside its closed shadow root, so the page sees the host).
    expect(await p.evaluate(() => document.activeElement?.tagName)).toBe('EVP-MESSAGE');
    await p.keyboard.press('Escape');
    await p.locator('evp-message').waitFor({ state: 'detached' });
    expect(await p.evaluate(() => document.activeElement?.id)).toBe('b');
    expect(await p.evaluate(() => (window as unknown as { __actions: unknown[] }).__actions)).toEqual([]);
    await call(p, 'flush');
    const stats = await actionStats(actionId, (r) => r.discard === 1);
    expect(stats).toMatchObject({ shown: 1, open: 0, discard: 1 });
    await ctx.close();
  });
  it('page hidden: app background, the current page view with its duration, uploaded at once; visible again: app resume', async () => {
    const ctx = await h.context();
    const user = uid('hidden');
    const p = await h.open(ctx, '/product/7', { flushIntervalMs: 3_600_000 });
    await call(p, 'identify', 'login', user);
    const setVisibility = (state: 'hidden' | 'visible') =>
      p.evaluate((v) => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => v });
        document.dispatchEvent(new Event('visibilitychange'));
      }, state);
    await setVisibility('hidden');
    // No flush call: going hidden uploads by itself. (App open may land under the user too when the
    // first paint came after the login: it is not what this test is about.)
    const notOpen = (e: { name: string; property: string }) => !(e.name === 'app' && e.property === 'open');
    const got = await waitFor(
      async () => {
        const e = (await h.events(user)).filter(notOpen);
        return e.length >= 3 ? e : undefined;
      },
      { timeoutMs: 30_000, what: 'identify, app background and the page view' },
    );
    // App background and the page view leave at once in their own request (Client.leave), ahead of
    // the queued login, and their times can tie (one millisecond): the store's order is not theirs.
    // Compared as a set.
    expect(got.map((e) => `${e.name} ${e.property}`).sort()).toEqual(['app background', 'identify login', `page ${SHOP}/product/7`]);
    expect(got.find((e) => e.name === 'page')!.props.duration as number).toBeGreaterThan(0);
    await setVisibility('visible');
    await call(p, 'flush');
    const resumed = await waitFor(
      async () => {
        const e = (await h.events(user, 'app')).filter(notOpen);
        return e.length >= 2 ? e : undefined;
      },
      { timeoutMs: 30_000, what: 'app resume' },
    );
    expect(resumed.map((e) => e.property)).toEqual(['background', 'resume']);
    await ctx.close();
  });
  it('calls made before init wait for it: nothing tracked early is lost', async () => {
    const ctx = await h.context();
    const user = uid('early');
    const p = await h.open(ctx, '/', { ...quiet, early: user });
    await p.evaluate(() => (window as unknown as { __early: Promise<void> }).__early);
    await call(p, 'flush');
    const got = await h.waitForEvents(user, 2);
    expect(got.map((e) => [e.name, e.property])).toEqual([
      ['identify', 'login'],
      ['custom', 'before_init'],
    ]);
    expect(got[1]!.meta).toEqual({ n: 1 });
    await ctx.close();
  });
  it('issue 36 item 10: calls made before an init() that never comes settle after 30 s (harmless values, one warning each), not never', async () => {
    const ctx = await h.context();
    const p = await ctx.newPage();
    const warnings: string[] = [];
    p.on('console', (m) => void (m.type() === 'warning' ? warnings.push(m.text()) : undefined));
    // An app page that loads the library (the platform's script build, served from the app's origin
    // here) and never calls init (a consent-gated app, say).
    const script = await (await fetch(`${h.baseUrl}/sdk/web.js`)).text();
    await ctx.route(`${h.appUrl}/no-init/web.js`, (r) => r.fulfill({ contentType: 'text/javascript', body: script }));
    await ctx.route(`${h.appUrl}/no-init/`, (r) => r.fulfill({ contentType: 'text/html', body: '<!doctype html><script src="web.js"></script>' }));
    await p.clock.install();
    await p.goto(`${h.appUrl}/no-init/`);
    await p.evaluate(() => {
      const w = window as unknown as Evp & { __settled: unknown[] };
      w.__settled = [];
      void w.evp.track!('search', { query: 'q', module: 'e_commerce', results_list: [] }).then((v) => w.__settled.push(['track', v ?? null]));
      void w.evp.fetchActions!({ type: 'custom' }).then((v) => w.__settled.push(['fetchActions', v]));
    });
    await p.clock.runFor(29_000);
    expect(await p.evaluate(() => (window as unknown as { __settled: unknown[] }).__settled)).toEqual([]);
    await p.clock.runFor(1_500);
    await p.waitForFunction(() => (window as unknown as { __settled: unknown[] }).__settled.length === 2);
    expect(await p.evaluate(() => (window as unknown as { __settled: unknown[] }).__settled)).toEqual([
      ['track', null],
      ['fetchActions', []],
    ]);
    expect(warnings.filter((w) => w.includes('no init()'))).toHaveLength(2);
    await ctx.close();
  });

  it('issue 36 item 11: never throws into the app, initialised, for nonsense arguments: every function answers its harmless value', async () => {
    const ctx = await h.context();
    const p = await h.open(ctx, '/', quiet);
    const errors: string[] = [];
    p.on('pageerror', (e) => void errors.push(e.message));
    const got = await p.evaluate(async () => {
      const evp = (window as unknown as { evp: Record<string, (...a: unknown[]) => unknown> }).evp;
      const hostile = {
        toString: () => {
          throw new Error('nonsense');
        },
      };
      const out: Record<string, unknown[]> = {};
      // init and optOut do what they should with any argument (init twice is ignored; optOut denies).
      for (const k of Object.keys(evp).filter((n) => n !== 'init' && n !== 'status' && n !== 'optOut')) {
        out[k] = [];
        for (const args of [[null, undefined, 42], [Symbol('x')], [hostile, hostile, hostile]]) {
          try {
            const r = await evp[k]!(...args);
            out[k].push(typeof r === 'function' ? 'function' : (r ?? null));
          } catch (e) {
            out[k].push(`threw ${String(e)}`);
          }
        }
      }
      return out;
    });
    const harmless: Record<string, unknown> = { fetchActions: [], showInAppMessage: false, onAction: 'function' };
    expect(Object.keys(got).length).toBeGreaterThan(10);
    for (const [k, results] of Object.entries(got)) expect({ [k]: results }).toEqual({ [k]: [0, 1, 2].map(() => harmless[k] ?? null) });
    // Still working afterwards.
    const user = uid('nonsense');
    await call(p, 'identify', 'login', user);
    await call(p, 'flush');
    expect((await h.waitForEvents(user, 1)).map((e) => e.name)).toEqual(['identify']);
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it('without keepalive fetch, leaving the page sends a beacon (sdk_key in the URL, text/plain) the platform accepts; the re-send is stored once', async () => {
    // The beacon is only needed for what is still queued when the page goes: on a loaded machine the
    // events can leave by an ordinary upload before pagehide, and then nothing is left to beacon. Such
    // an attempt proves nothing and is made again with a new page and user (at most three; the test
    // fails when none keeps its events until pagehide).
    const attempt = async () => {
      const ctx = await h.context();
      // A browser without keepalive fetch.
      await ctx.addInitScript(() => {
        delete (Request.prototype as { keepalive?: unknown }).keepalive;
      });
      const beacons: { url: string; type: string | undefined; body: string }[] = [];
      let earlyUploads = 0;
      ctx.on('request', (r) => {
        if (r.method() === 'POST' && r.url().includes('/v1/ingest/log?')) beacons.push({ url: r.url(), type: r.headers()['content-type'], body: '' });
        else if (r.method() === 'POST' && r.url() === `${h.baseUrl}/v1/ingest/log` && beacons.length === 0) earlyUploads += 1;
      });
      const user = uid('beacon');
      // Chromium does not hand a cross-origin beacon's body to the request event: the page keeps a copy.
      const p = await h.open(ctx, '/', { ...quiet, captureBeacons: true });
      // Init starts an upload pass of its own (anything left from earlier pages); when it lags behind
      // the calls below (a slow IndexedDB open on a loaded machine) it takes their events with it.
      // A flush waits for the pass that runs, so the events below stay queued until pagehide.
      await call(p, 'flush');
      await call(p, 'identify', 'login', user);
      await search(p, 'beaconed');
      await p.evaluate(() => window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: false })));
      const got = await h.waitForEvents(user, 2);
      // Judged once the events are stored: the browser reports a request a little after it starts, so
      // an upload begun before pagehide can be seen after it; one seen while no beacon had gone is early.
      return { ctx, p, user, beacons, got, early: beacons.length === 0 && earlyUploads > 0 };
    };
    let run = await attempt();
    for (let i = 1; i < 3 && run.early; i++) {
      await run.ctx.close();
      run = await attempt();
    }
    expect({ uploadedBeforePagehide: run.early }).toEqual({ uploadedBeforePagehide: false });
    const { ctx, p, user, beacons, got } = run;
    expect(got.map((e) => [e.name, e.property])).toEqual([
      ['identify', 'login'],
      ['search', 'beaconed'],
    ]);
    expect(beacons).toHaveLength(1);
    expect(beacons[0]!.url).toBe(`${h.baseUrl}/v1/ingest/log?sdk_key=${encodeURIComponent(SDK_KEY)}`);
    expect(beacons[0]!.type).toMatch(/^text\/plain/);
    // The beacon's answer was never seen: the batch is still queued and goes again, byte for byte
    // but for sent_at; the platform keeps one copy.
    const bodies = await p.evaluate(() => Promise.all((window as unknown as { __beacons: Promise<string>[] }).__beacons));
    expect(bodies).toHaveLength(1);
    beacons[0]!.body = bodies[0]!;
    const resent = p.waitForResponse((r) => r.request().method() === 'POST' && r.url() === `${h.baseUrl}/v1/ingest/log`);
    await call(p, 'flush');
    const res = await resent;
    expect(withoutSentAt(res.request().postData() ?? '')).toBe(withoutSentAt(beacons[0]!.body));
    const requestId = res.headers()['x-request-id'];
    await waitFor(
      async () => {
        const v = await fetch(`${h.baseUrl}/v1/ingest/requests/${requestId}`, { headers: { Authorization: `Bearer ${API_KEY}` } });
        return ((await v.json()) as { status: string }).status === 'complete' ? true : undefined;
      },
      { timeoutMs: 30_000, what: 'the verdict of the re-send' },
    );
    const again = await h.events(user, 'search');
    expect(again.map((e) => e.property)).toEqual(['beaconed']);
    await ctx.close();
  });

  it('issue 36 item 1: the landing page view of a tab closed 1 s after load arrives on that visit (≥ 19 of 20), with non-ASCII content', async () => {
    const runs = 20;
    let arrived = 0;
    const users: string[] = [];
    const contexts: BrowserContext[] = [];
    for (let i = 0; i < runs; i++) {
      const ctx = await h.context();
      const user = uid('landing');
      users.push(user);
      const p = await h.open(ctx, `/लैंडिंग-${i}`, { trackApp: false, flushIntervalMs: 3_600_000 });
      await call(p, 'identify', 'login', user);
      await p.evaluate(() => (document.title = 'पैरासिटामोल की दुकान'));
      await p.waitForTimeout(1_000);
      // The tab closes; the browser (its context) stays, as when a user closes one tab.
      await p.close();
      contexts.push(ctx);
    }
    for (const user of users) {
      const got = await h.events(user, 'page').catch(() => []);
      if (got.length > 0) arrived += 1;
    }
    // Stored ones may still be on their way through the pipeline: counted again until the deadline.
    const final = await waitFor(
      async () => {
        let n = 0;
        for (const user of users) if ((await h.events(user, 'page')).length > 0) n += 1;
        return n >= runs ? n : undefined;
      },
      { timeoutMs: 15_000, what: 'every landing page view' },
    ).catch(async () => {
      let n = 0;
      for (const user of users) if ((await h.events(user, 'page')).length > 0) n += 1;
      return n;
    });
    const missing: number[] = [];
    for (const [i, user] of users.entries()) if ((await h.events(user, 'page')).length === 0) missing.push(i);
    console.info(`landing page views arrived on the visit: ${final} of ${runs} (first count ${arrived}; missing: ${missing.join(', ') || 'none'})`);
    await Promise.all(contexts.map((c) => c.close()));
    expect(final).toBeGreaterThanOrEqual(19);
    const one = await h.events(users[0]!, 'page');
    expect(one.map((e) => [e.props.path, e.props.title])).toEqual([[encodeURI(`${SHOP}/लैंडिंग-0`), 'पैरासिटामोल की दुकान']]);
  });

  it('issue 36 item 1: a visitor who leaves at once (the tab closed, or another site opened, right after load): the landing page view arrives on that visit (≥ 19 of 20 each)', async () => {
    // Right after load is before the client exists (its device id is made under an asynchronous
    // lock): init() makes it at once when the page goes away first. Without that, 8 and 9 of 20.
    const runs = 20;
    const arrived: Record<string, number> = {};
    // The browser stays open (closing a context right after its tab can cancel a keepalive request in flight: no user's close).
    const contexts: BrowserContext[] = [];
    for (const leave of ['close', 'navigate'] as const) {
      const tag = uid(`बाउंस-${leave}`);
      for (let i = 0; i < runs; i++) {
        const ctx = await h.context();
        const p = await ctx.newPage();
        await p.goto(h.pageUrl(`/${tag}-${i}`, { flushIntervalMs: 3_600_000 }));
        if (leave === 'close') await p.close();
        else await p.goto(`${h.baseUrl}/health`);
        contexts.push(ctx);
      }
      const views = async () => {
        const res = await fetch(`${h.baseUrl}/v1/inspect/events?name=page&limit=1000`, { headers: { Authorization: `Bearer ${API_KEY}` } });
        const got = ((await res.json()) as { data: { props: { path: string; title: string; duration: number } }[] }).data;
        return got.filter((e) => e.props.path.startsWith(encodeURI(`${SHOP}/${tag}-`)));
      };
      const got = await waitFor(async () => ((await views()).length >= runs ? views() : undefined), {
        timeoutMs: 15_000,
        what: `${leave}: every landing page view`,
      }).catch(views);
      arrived[leave] = new Set(got.map((e) => e.props.path)).size;
      // One view per visit, with its duration on screen (from init to the leave: under a few seconds).
      expect(got.length).toBe(arrived[leave]);
      for (const e of got) {
        expect(e.props.title).toBe('Shop');
        expect(e.props.duration).toBeGreaterThanOrEqual(0);
        expect(e.props.duration).toBeLessThan(10);
      }
    }
    await Promise.all(contexts.map((c) => c.close()));
    console.info(`landing page views of visitors who left at once: closed ${arrived.close} of ${runs}, navigated away ${arrived.navigate} of ${runs}`);
    expect(arrived.close).toBeGreaterThanOrEqual(19);
    expect(arrived.navigate).toBeGreaterThanOrEqual(19);
  });

  it('issue 34: init with the bare base URL (what npm start prints) uploads to {base}/v1', async () => {
    const ctx = await h.context();
    const p = await h.open(ctx, '/', { ...quiet, apiUrl: h.baseUrl });
    const user = uid('bare');
    await call(p, 'identify', 'login', user);
    await search(p, 'bare base');
    await call(p, 'flush');
    const got = await h.waitForEvents(user, 2);
    expect(got.map((e) => e.name)).toEqual(['identify', 'search']);
    await ctx.close();
  });

  it('issue 36 item 5: a hash router’s routes are page views', async () => {
    const ctx = await h.context();
    const p = await h.open(ctx, '/app', { trackApp: false });
    const user = uid('hash');
    await call(p, 'identify', 'login', user);
    await p.evaluate(() => (location.hash = '#/cart'));
    await p.waitForTimeout(100);
    await p.evaluate(() => (location.hash = '#/checkout?step=2'));
    await p.waitForTimeout(100);
    await call(p, 'flush');
    const pages = await h.waitForEvents(user, 2, 'page');
    expect(pages.map((e) => e.props.path)).toEqual([`${SHOP}/app`, `${SHOP}/app#/cart`]);
    await ctx.close();
  });

  describe('issue 36 item 3: IndexedDB unavailable or failing', () => {
    const track = async (init: () => void) => {
      const ctx = await h.context();
      await ctx.addInitScript(init);
      const p = await h.open(ctx, '/', quiet);
      const user = uid('idb');
      await call(p, 'identify', 'login', user);
      await search(p, 'stored anyway');
      await call(p, 'flush');
      const got = await h.waitForEvents(user, 2);
      expect(got.map((e) => e.name)).toEqual(['identify', 'search']);
      return { ctx, p };
    };
    it('indexedDB.open throws (SecurityError): the library runs on memory', async () => {
      const { ctx } = await track(() => {
        IDBFactory.prototype.open = () => {
          throw new DOMException('denied', 'SecurityError');
        };
      });
      await ctx.close();
    });
    it('indexedDB.open never answers: calls settle, the library runs on memory', async () => {
      const { ctx } = await track(() => {
        IDBFactory.prototype.open = () => ({}) as IDBOpenDBRequest;
      });
      await ctx.close();
    });
    it('a put fails (quota): the event is not lost, it goes on in memory', async () => {
      const { ctx, p } = await track(() => {
        IDBObjectStore.prototype.put = () => {
          throw new DOMException('full', 'QuotaExceededError');
        };
      });
      expect(await p.evaluate(() => (window as unknown as Evp).evp.status!())).toMatchObject({ dropped: 0, uploads: 'idle' });
      await ctx.close();
    });
  });

  it('issue 36 item 4: consent granted in another tab sends what this tab held while pending', async () => {
    const ctx = await h.context();
    const user = uid('tabconsent');
    const tab1 = await h.open(ctx, '/', { ...quiet, consent: 'pending' });
    await call(tab1, 'identify', 'login', user);
    await search(tab1, 'held in tab 1');
    const tab2 = await h.open(ctx, '/', { ...quiet, consent: 'pending' });
    await call(tab2, 'setConsent', 'granted');
    const got = await h.waitForEvents(user, 2);
    expect(got.map((e) => [e.name, e.property])).toEqual([
      ['identify', 'login'],
      ['search', 'held in tab 1'],
    ]);
    await ctx.close();
  });

  it('issue 36 item 4: the consent init option is no choice: a later visit’s option applies', async () => {
    const ctx = await h.context();
    const bodies = posted(ctx, '/v1/ingest/');
    const first = await h.open(ctx, '/', { ...quiet, consent: 'granted' });
    await first.close();
    const second = await h.open(ctx, '/', { ...quiet, consent: 'denied' });
    await search(second, 'must not leave');
    await call(second, 'flush');
    expect(await second.evaluate(() => (window as unknown as Evp).evp.status!())).toMatchObject({ consent: 'denied' });
    expect(bodies.filter((b) => b.includes('must not leave'))).toEqual([]);
    await ctx.close();
  });

  /** The device id a page's library uses (its anonymous user). */
  const deviceIdOf = (p: Page) => p.evaluate(() => (window as unknown as Evp).evp.status!().then((s) => (s as { user: string }).user));

  it('two tabs of a first visit make one device id, also when the first tab’s localStorage write reaches the second late (3 rounds)', async () => {
    // Chromium carries one renderer's localStorage write to another asynchronously. A page of the
    // origin holds the library's device id lock (its name is the id's localStorage key) until both tabs wait
    // for it, then writes 20 MB to localStorage and lets go: tab a makes the id and releases the lock,
    // and tab b, granted it at once, finds its copy of localStorage still behind (a's write queued
    // behind the 20 MB). Before the id's own lock (browser/device-id.ts) b made a second id in 29 of
    // 30 rounds; three rounds make a pass by luck unlikely.
    const lock = 'evp:e2e-shop:d';
    for (let round = 0; round < 3; round++) {
      const ctx = await h.context();
      // A page of the origin (another app id, so its own library keeps out of the way).
      const other = await h.open(ctx, '/other', { ...quiet, appId: 'other' });
      // Resolved once the lock is granted (held from then on until letGo).
      await other.evaluate(
        (name) =>
          new Promise<void>((held) => {
            const w = window as unknown as { letGo: () => void };
            void navigator.locks.request(name, () => new Promise<void>((r) => ((w.letGo = r), held())));
          }),
        lock,
      );
      const waiting = (n: number) =>
        other.waitForFunction(([name, n]) => navigator.locks.query().then((q) => q.pending!.filter((l) => l.name === name).length === n), [lock, n] as const);
      const a = await h.open(ctx, '/a', quiet);
      await waiting(1);
      const b = await h.open(ctx, '/b', quiet);
      await waiting(2);
      await other.evaluate(() => {
        const mb = 'x'.repeat(1_000_000);
        for (let i = 0; i < 20; i++) localStorage.setItem('other', mb + i);
        (window as unknown as { letGo: () => void }).letGo();
      });
      const ids = await Promise.all([a, b].map(deviceIdOf));
      expect(ids[0]).toMatch(/^anon:[0-9a-z]+$/);
      expect(ids[1]).toBe(ids[0]);
      // Both pages store that id (b's copy of localStorage has caught up by now).
      await b.waitForFunction((id) => localStorage.getItem('evp:e2e-shop:d') === JSON.stringify(id), ids[0]);
      await ctx.close();
    }
  });

  it('without Web Locks (an old browser, an origin that is not secure): the device id is made, stored, and events upload; nothing warned', async () => {
    const ctx = await h.context();
    await ctx.addInitScript(() => Object.defineProperty(Navigator.prototype, 'locks', { get: () => undefined, configurable: true }));
    const warnings: string[] = [];
    ctx.on('console', (m) => void (m.type() === 'warning' && m.text().startsWith('[evp]') && warnings.push(m.text())));
    const p = await h.open(ctx, '/', quiet);
    const id = await deviceIdOf(p);
    expect(id).toMatch(/^anon:[0-9a-z]+$/);
    expect(await p.evaluate(() => [typeof navigator.locks, localStorage.getItem('evp:e2e-shop:d')])).toEqual(['undefined', JSON.stringify(id)]);
    const user = uid('nolocks');
    await call(p, 'identify', 'login', user);
    await search(p, 'no locks');
    await call(p, 'flush');
    const got = await h.waitForEvents(user, 2);
    expect(got.map((e) => [e.name, e.property])).toEqual([
      ['identify', 'login'],
      ['search', 'no locks'],
    ]);
    expect(warnings).toEqual([]);
    await ctx.close();
  });

  it('issue 36 item 9: two tabs of a first visit make one device id; flush() in the tab without the lock sends', async () => {
    const ctx = await h.context();
    const [a, b] = await Promise.all([h.open(ctx, '/a', quiet), h.open(ctx, '/b', quiet)]);
    const users = await Promise.all([a, b].map(deviceIdOf));
    expect(users[1]).toBe(users[0]);
    // Tab a holds the upload lock (a request that does not answer for a while); tab b's flush waits for it.
    await ctx.route('**/v1/ingest/log', async (route) => {
      if (route.request().method() === 'POST') await new Promise((r) => setTimeout(r, 1_000));
      await route.continue();
    });
    const user = uid('lock');
    await call(a, 'identify', 'login', user);
    void call(a, 'flush');
    const sent = posted(ctx);
    await search(b, 'from tab b');
    await call(b, 'flush');
    // Resolved only once the search left (by whichever tab): not at once because the lock was taken.
    expect(sent.some((body) => body.includes('from tab b'))).toBe(true);
    const got = await h.waitForEvents(user, 2, undefined, 10_000);
    expect(got.map((e) => e.name)).toEqual(['identify', 'search']);
    await ctx.close();
  });

  it('issue 36 item 10: a 2,000-character message at 375×600 scrolls inside the dialog; labels, aria-describedby and the nonce are the app’s', async () => {
    const user = uid('long');
    const actionId = Math.floor(Math.random() * 1e9);
    const body = 'Ihr Rezept ist fertig. '.repeat(87).slice(0, 2_000);
    await createAction(user, actionId, { title: 'Nachfüllung bereit', body });
    const ctx = await h.context();
    // The renderer's shadow root is closed: the test keeps a handle on it (a test-only hook).
    await ctx.addInitScript(() => {
      const attach = Object.getOwnPropertyDescriptor(Element.prototype, 'attachShadow')!.value as (this: Element, i: ShadowRootInit) => ShadowRoot;
      Element.prototype.attachShadow = function (init) {
        const root = attach.call(this, init);
        (window as unknown as { __root: ShadowRoot }).__root = root;
        return root;
      };
    });
    const p = await ctx.newPage();
    await p.setViewportSize({ width: 375, height: 600 });
    await p.goto(
      `${h.appUrl}${SHOP}/?init=${encodeURIComponent(JSON.stringify({ ...quiet, nudges: true, labels: { open: 'Öffnen', close: 'Schließen' }, nonce: 'n0nce' }))}`,
    );
    await p.waitForFunction(() => typeof (window as { evp?: unknown }).evp === 'object');
    await call(p, 'identify', 'login', user);
    await p.locator('evp-message').waitFor();
    const shown = await p.evaluate(() => {
      const root = (window as unknown as { __root: ShadowRoot }).__root;
      const box = (sel: string) => {
        const r = root.querySelector(sel)!.getBoundingClientRect();
        return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
      };
      const para = root.querySelector('p')!;
      const dialog = root.querySelector('[role=dialog]')!;
      return {
        onScreen: { title: box('h2'), close: box('.x'), cta: box('.cta') },
        bodyScrolls: para.scrollHeight > para.clientHeight,
        describedBy: root.getElementById(dialog.getAttribute('aria-describedby')!) === para,
        labels: [root.querySelector('.cta')!.textContent, root.querySelector('.x')!.getAttribute('aria-label')],
        // Every part's <script> carries it: the renderer and the action pull (nudges) alike.
        nonce: ['web-messages.js', 'web-actions.js'].map((f) => (document.querySelector(`script[src$="${f}"]`) as HTMLScriptElement).nonce),
      };
    });
    expect(shown).toEqual({
      onScreen: { title: true, close: true, cta: true },
      bodyScrolls: true,
      describedBy: true,
      labels: ['Öffnen', 'Schließen'],
      nonce: ['n0nce', 'n0nce'],
    });
    await p.screenshot({ path: join(tmpdir(), 'web-message-375x600.png') });
    await ctx.close();
  });

  it('issue 36 item 6: an app rendering its own UI: fetchActions by type, respond() logs nudge_response and the one-off is handled', async () => {
    const user = uid('respond');
    const actionId = Math.floor(Math.random() * 1e9);
    await createAction(user, actionId, { title: 'Refill', body: 'ready' });
    const ctx = await h.context();
    const p = await h.open(ctx, '/', quiet);
    await call(p, 'identify', 'login', user);
    const q = { type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off' };
    const [action] = (await call(p, 'fetchActions', q)) as { ref: string }[];
    expect(action?.ref).toMatch(new RegExp(`:${actionId}$`));
    // Kept until handled, but never under another filter.
    expect(await call(p, 'fetchActions', { ...q, type: 'custom', render_method: 'generic_message' })).toEqual([]);
    await call(p, 'respond', action, 'discard');
    expect(await call(p, 'fetchActions', q)).toEqual([]);
    await call(p, 'flush');
    expect(await actionStats(actionId, (r) => r.discard === 1)).toMatchObject({ discard: 1, open: 0 });
    await ctx.close();
  });

  it('register(): global properties arrive in every later event’s meta, accepted without warnings; unregister() removes one', async () => {
    const ctx = await h.context();
    const p = await h.open(ctx, '/', quiet);
    const user = uid('register');
    await call(p, 'identify', 'login', user);
    await call(p, 'register', { plan: 'pro', ab: 'b' });
    await search(p, 'with globals');
    await call(p, 'unregister', 'ab');
    await call(p, 'trackCustom', 'shared', { n: 1 });
    await call(p, 'flush');
    const got = await h.waitForEvents(user, 3);
    expect(got.map((e) => [e.name, e.meta])).toEqual([
      ['identify', null],
      ['search', { plan: 'pro', ab: 'b' }],
      ['custom', { plan: 'pro', n: 1 }],
    ]);
    expect(got.map((e) => e.warnings.filter((w) => w.rule !== 'event_not_in_spec'))).toEqual([[], [], []]);
    await ctx.close();
  });

  describe('bot filtering, on by default', () => {
    /** A page with filterBots on (the default), `webdriver` and the user agent as given; what it sent, stored and said. */
    const visit = async (o: { webdriver?: boolean; userAgent?: string }) => {
      const ctx = await h.browser().newContext(o.userAgent ? { userAgent: o.userAgent } : {});
      if (o.webdriver === false) await ctx.addInitScript(() => Object.defineProperty(Navigator.prototype, 'webdriver', { get: () => false }));
      const bodies = posted(ctx, '/v1/ingest/');
      const warnings: string[] = [];
      const p = await ctx.newPage();
      p.on('console', (m) => void (m.type() === 'warning' ? warnings.push(m.text()) : undefined));
      await p.goto(h.pageUrl('/', { filterBots: true, trackApp: false, flushIntervalMs: 100 }));
      await p.waitForFunction(() => typeof (window as { evp?: unknown }).evp === 'object');
      const user = uid('bot');
      await call(p, 'identify', 'login', user);
      await search(p, 'by a robot');
      await call(p, 'flush');
      const status = (await call(p, 'status')) as { bot: boolean; filtered: number };
      const device = await p.evaluate(async () => [Object.keys(localStorage), (await indexedDB.databases()).map((d) => d.name)]);
      await p.close();
      await ctx.close();
      return { user, bodies, warnings: warnings.filter((w) => w.includes('filterBots')), status: { bot: status.bot, filtered: status.filtered }, device };
    };

    it('an automated browser (navigator.webdriver, the tests’ own Chromium) records, keeps and sends nothing, and counts it', async () => {
      const got = await visit({});
      expect({ ...got, user: undefined }).toEqual({
        user: undefined,
        bodies: [],
        warnings: ['[evp] bot: off (filterBots) '],
        status: { bot: true, filtered: 2 },
        device: [[], []],
      });
    });

    it('a crawler’s user agent (Googlebot) without webdriver: nothing sent, counted; a person’s browser records as usual', async () => {
      const bot = await visit({ webdriver: false, userAgent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' });
      expect([bot.bodies, bot.status]).toEqual([[], { bot: true, filtered: 2 }]);
      const person = await visit({
        webdriver: false,
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      });
      expect([person.warnings, person.status]).toEqual([[], { bot: false, filtered: 0 }]);
      // The page view goes too, when the page closes (a view is recorded as it ends): all three arrive.
      expect((await h.waitForEvents(person.user, 3)).map((e) => e.name)).toEqual(['identify', 'search', 'page']);
    });
  });
});
