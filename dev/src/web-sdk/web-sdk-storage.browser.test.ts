/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { waitFor } from '@evp/testkit';
import { API_KEY } from '../testing/scenario';
import { call, quiet, search, uid, webSdkHarness } from './harness';

/**
 * Issue 36's remaining items in Chromium, from a page of another origin against the embedded
 * pipeline: nothing written to the device while consent is pending, a memory-only mode, and message
 * expiry on the platform's clock (its `Date`, exposed by CORS) rather than the device's.
 */
/** What the page's origin holds on the device: localStorage keys and IndexedDB database names. */
const onDevice = (p: Page) =>
  p.evaluate(async () => ({ local: Object.keys(localStorage).sort(), idb: (await indexedDB.databases()).map((d) => d.name).sort() }));

describe('the web library’s storage and clocks in Chromium', () => {
  const h = webSdkHarness('websdk-storage');
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  it('issue 36: cookieless while consent is pending (nothing in localStorage or IndexedDB); granted, the held events are stored and arrive', async () => {
    const ctx = await h.context();
    const user = uid('cookieless');
    const p = await h.open(ctx, '/', { ...quiet, consent: 'pending' });
    await call(p, 'identify', 'login', user);
    await search(p, 'held');
    await call(p, 'flush');
    expect(await onDevice(p)).toEqual({ local: [], idb: [] });
    await call(p, 'setConsent', 'granted');
    const got = await h.waitForEvents(user, 2);
    expect(got.map((e) => e.property).sort()).toEqual(['held', 'login']);
    // From the grant on, the device keeps the choice, the device id, user and session, and the queue.
    const after = await onDevice(p);
    expect(after.local).toEqual(expect.arrayContaining(['evp:e2e-shop:c', 'evp:e2e-shop:d', 'evp:e2e-shop:u', 'evp:e2e-shop:s']));
    expect(after.idb).toEqual(['evp:e2e-shop']);
    await ctx.close();
  });

  it('issue 36: storage "memory" writes nothing to the device, and uploads as usual', async () => {
    const ctx = await h.context();
    const user = uid('memory');
    const p = await h.open(ctx, '/', { ...quiet, storage: 'memory' });
    await call(p, 'identify', 'login', user);
    await search(p, 'in memory');
    await call(p, 'flush');
    const got = await h.waitForEvents(user, 2);
    expect(got.map((e) => e.property).sort()).toEqual(['in memory', 'login']);
    expect(await onDevice(p)).toEqual({ local: [], idb: [] });
    await ctx.close();
  });

  it('issue 36: captureErrors (opt-in, a lazily loaded part): an uncaught error and an unhandled rejection arrive as exception events, without warnings', async () => {
    const ctx = await h.context();
    const user = uid('errors');
    const loaded: string[] = [];
    ctx.on('request', (r) => void (r.url().includes('/sdk/web-') ? loaded.push(new URL(r.url()).pathname) : undefined));
    const off = await h.open(ctx, '/', quiet);
    await off.evaluate(() =>
      setTimeout(() => {
        throw new RangeError('not captured');
      }, 0),
    );
    const p = await h.open(ctx, '/', { ...quiet, captureErrors: true });
    await call(p, 'identify', 'login', user);
    await p.waitForFunction(() => document.querySelector('script[src$="web-errors.js"]') !== null);
    await p.evaluate(() =>
      setTimeout(() => {
        throw new TypeError('cart is undefined');
      }, 0),
    );
    await p.evaluate(() => void Promise.reject(new Error('refill request failed')));
    await p.evaluate(() => new Promise((r) => setTimeout(r, 100)));
    await call(p, 'flush');
    const got = await h.waitForEvents(user, 2, 'exception');
    expect(got.map((e) => [e.props.title, e.props.exception_type, e.props.exception_source, e.property]).sort()).toEqual([
      ['Uncaught TypeError: cart is undefined', 'TypeError', 'web', 'exception'],
      ['refill request failed', 'Error', 'web', 'exception'],
    ]);
    expect(got.map((e) => e.props.event_type).sort()).toEqual([expect.stringMatching(/./), 'unhandledrejection']);
    expect(got.every((e) => typeof e.props.stack_trace === 'string' && e.warnings.length === 0)).toBe(true);
    // Off by default: the first page never loaded the part.
    expect(loaded.filter((x) => x.endsWith('web-errors.js'))).toHaveLength(1);
    await ctx.close();
  });

  it('issue 36: context (opt-in, a lazily loaded part): device, locale, time zone, screen, viewport, landing URL without its query, referrer and UTM in internal.context, accepted without warnings', async () => {
    const ctx = await h.context();
    const user = uid('context');
    const bodies: string[] = [];
    ctx.on('request', (r) => void (r.method() === 'POST' && r.url().endsWith('/v1/ingest/log') ? bodies.push(r.postData() ?? '') : undefined));
    const page = await ctx.newPage();
    await page.setViewportSize({ width: 390, height: 700 });
    await page.goto(h.pageUrl('/landing?utm_source=sms&utm_campaign=refill&q=amoxicillin', { ...quiet, context: true }), {
      referer: 'https://search.example/',
    });
    await page.waitForFunction(() => document.querySelector('script[src$="web-context.js"]') !== null);
    await call(page, 'identify', 'login', user);
    await call(page, 'flush');
    const got = await h.waitForEvents(user, 1);
    expect(got[0]!.warnings).toEqual([]);
    const sent = bodies.flatMap((b) => [JSON.parse(b)].flat() as { id: string; internal: { context?: Record<string, string> } }[]).find((e) => e.id === user)!;
    expect(sent.internal.context).toEqual({
      user_agent: await page.evaluate(() => navigator.userAgent),
      locale: await page.evaluate(() => navigator.language),
      time_zone: await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone),
      screen: await page.evaluate(() => `${screen.width}x${screen.height}`),
      viewport: await page.evaluate(() => `${innerWidth}x${innerHeight}`),
      landing_url: `${h.appUrl}/shop/landing`,
      referrer: 'https://search.example/',
      utm_source: 'sms',
      utm_campaign: 'refill',
    });
    expect(JSON.stringify(sent)).not.toContain('amoxicillin');
    // The next page of the session (no UTM, referred by the shop itself) still carries the visit's
    // attribution: the landing page, the search referrer and the campaign.
    await page.goto(h.pageUrl('/cart', { ...quiet, context: true }), { referer: `${h.appUrl}/shop/landing` });
    await page.waitForFunction(() => document.querySelector('script[src$="web-context.js"]') !== null);
    // Only what this page uploads (the first page's leave send went out before it loaded).
    bodies.length = 0;
    await call(page, 'identify', 'login', user);
    await call(page, 'flush');
    const next = bodies.flatMap((b) => [JSON.parse(b)].flat() as { id: string; internal: { context?: Record<string, string> } }[]).find((e) => e.id === user)!;
    expect(next.internal.context).toMatchObject({
      viewport: '390x700',
      landing_url: `${h.appUrl}/shop/landing`,
      referrer: 'https://search.example/',
      utm_source: 'sms',
      utm_campaign: 'refill',
    });
    await ctx.close();
  });

  it('issue 36: webVitals (opt-in, a lazily loaded part): LCP, INP and CLS logged once when the page is hidden, as custom web_vital events without warnings', async () => {
    const ctx = await h.context();
    const user = uid('vitals');
    const p = await h.open(ctx, '/vitals', { ...quiet, webVitals: true });
    await call(p, 'identify', 'login', user);
    await p.waitForFunction(() => document.querySelector('script[src$="web-vitals.js"]') !== null);
    // A layout shift (content pushed down, no input before it), then a slow interaction (a 150 ms click handler).
    await p.evaluate(async () => {
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 100)));
      const d = document.createElement('div');
      d.style.height = '300px';
      document.body.prepend(d);
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 100)));
      document.getElementById('b')!.addEventListener('click', () => {
        const t = performance.now();
        while (performance.now() - t < 150);
      });
    });
    await p.click('#b');
    await p.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 200))));
    const hide = () =>
      p.evaluate(() => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
        document.dispatchEvent(new Event('visibilitychange'));
      });
    await hide();
    await hide();
    const got = await h.waitForEvents(user, 3, 'custom');
    const vitals = got.map((e) => ({
      ...(e.meta as { metric: string; value: number; rating: string; path: string }),
      name: e.props.name,
      warnings: e.warnings,
    }));
    expect(vitals.map((v) => v.metric).sort()).toEqual(['CLS', 'INP', 'LCP']);
    const by = Object.fromEntries(vitals.map((v) => [v.metric, v]));
    expect(by.LCP!.value).toBeGreaterThan(0);
    expect(by.CLS!.value).toBeGreaterThan(0);
    expect(by.INP!.value).toBeGreaterThanOrEqual(150);
    for (const v of vitals) {
      expect([v.name, v.path, v.warnings]).toEqual(['web_vital', '/shop/vitals', []]);
      expect(['good', 'needs-improvement', 'poor']).toContain(v.rating);
    }
    await p.waitForTimeout(500);
    expect(await h.events(user, 'custom')).toHaveLength(3);
    await ctx.close();
  });

  it('issue 36 item 8: a message is expired by the platform’s clock (the pull answer’s Date), not by the device’s (2 h behind it)', async () => {
    const user = uid('clock');
    const actionId = Math.floor(Math.random() * 1e9);
    // Expired an hour ago by the platform's clock; an hour from now by a device clock 2 h slow.
    const res = await fetch(`${h.baseUrl}/v1/actions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${API_KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify([
        {
          user_id: user,
          type: 'message',
          render_method: 'in_app_message',
          delivery_mode: 'one-off',
          content: { title: 'Late', body: 'Too late' },
          attr: {},
          expired_at: new Date(Date.now() + 3_600_000).toISOString(),
          inv_id: 1,
          action_id: actionId,
        },
      ]),
    });
    expect(res.status).toBe(200);
    const ctx = await h.context();
    await ctx.addInitScript(() => {
      const now = Date.now.bind(Date);
      Date.now = () => now() - 2 * 3_600_000;
    });
    const p = await h.open(ctx, '/', { ...quiet, nudges: true, autoShowInAppMessages: false });
    await call(p, 'identify', 'login', user);
    // The platform's clock is moved on instead of waiting: the pull answers Date two hours ahead of
    // the device, one hour past the message's expiry.
    await ctx.route('**/v1/action/sdk/pull', async (route) => {
      const answer = await route.fetch();
      await route.fulfill({ response: answer, headers: { ...answer.headers(), date: new Date(Date.now() + 7_200_000).toUTCString() } });
    });
    expect(await call(p, 'showInAppMessage', 'home')).toBe(false);
    expect(await p.locator('evp-message').count()).toBe(0);
    await call(p, 'flush');
    const responses = await waitFor(
      async () => {
        const e = await h.events(user, 'nudge_response');
        return e.length > 0 ? e : undefined;
      },
      { timeoutMs: 30_000, what: 'the nudge_response' },
    );
    expect(responses.map((e) => e.props.response)).toEqual(['expired']);
    await ctx.close();
  });
});
