/// <reference lib="dom" />
import { chromium, type Browser } from 'playwright-core';
import { requireProgram } from '@evp/testkit';
import { call, quiet, search, uid, webSdkHarness } from './harness';

/**
 * The back/forward cache: a page using the library, left for another page of the app (which opens
 * the library too) and come back to, is restored from Chromium's bfcache, and what it records after
 * the restore arrives once. Its own Chromium: playwright-core turns the bfcache off by default.
 * Before the fix the upload lock the page asked for while it went away was granted after it froze:
 * evicted ("masked"; CDP: JavaScriptExecution).
 */
type Shown = { shown?: boolean[] };

describe('the web library and the back/forward cache (Chromium)', () => {
  const h = webSdkHarness('websdk-bfcache');
  let browser: Browser;
  beforeAll(async () => {
    await h.start();
    browser = await chromium.launch({
      executablePath: requireProgram('chromium'),
      args: ['--no-sandbox', '--disable-dev-shm-usage'],
      ignoreDefaultArgs: ['--disable-back-forward-cache'],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await h.stop();
  });

  it('away to another page of the app and back: restored (pageshow persisted), no reason reported; events after the restore arrive once', async () => {
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    const cdp = await ctx.newCDPSession(p);
    await cdp.send('Page.enable');
    const notUsed: unknown[] = [];
    cdp.on('Page.backForwardCacheNotUsed', (e) => notUsed.push(e.notRestoredExplanations));
    const user = uid('bfcache');
    // The app's pages are no-store unless `cacheable=1` (a no-store page is never cached: not the library's doing).
    await p.goto(h.pageUrl('/cart?cacheable=1', quiet));
    await p.waitForFunction(() => typeof (window as { evp?: unknown }).evp === 'object');
    await p.evaluate(() => addEventListener('pageshow', (e) => ((window as Shown).shown ??= []).push(e.persisted)));
    await call(p, 'identify', 'login', user);
    await search(p, 'before');
    await call(p, 'flush');
    await h.waitForEvents(user, 1, 'search');

    await p.goto(h.pageUrl('/checkout', quiet));
    await p.waitForFunction(() => typeof (window as { evp?: unknown }).evp === 'object');
    await call(p, 'flush');
    await p.goBack({ waitUntil: 'commit' });
    // Restored, the page has the listener and its `shown`; loaded anew, neither.
    await p.waitForFunction(() => document.readyState === 'complete' && typeof (window as { evp?: unknown }).evp === 'object');
    expect([await p.evaluate(() => (window as Shown).shown), notUsed]).toEqual([[true], []]);

    await search(p, 'after');
    await call(p, 'flush');
    const got = await h.waitForEvents(user, 2, 'search');
    // Another flush, and time for anything sent twice to land: still once each.
    await call(p, 'flush');
    await p.waitForTimeout(1_000);
    const again = await h.events(user, 'search');
    expect(again.map((e) => e.props.query)).toEqual(['before', 'after']);
    expect(again.map((e) => e.event_id)).toEqual(got.map((e) => e.event_id));
    await ctx.close();
  });
});
