import type { Page, Request } from 'playwright-core';
import { SHOP, webSdkHarness } from './harness';

/**
 * The web library in Chromium against the real embedded pipeline: what a page does with the
 * library, asserted by what the platform stored (the inspector API) and by the requests it saw.
 */
type Evp = { evp: Record<string, (...a: unknown[]) => Promise<unknown>> };
const call = (p: Page, fn: string, ...args: unknown[]) =>
  p.evaluate(([f, a]) => (window as unknown as Evp).evp[f as string]!(...(a as unknown[])), [fn, args] as const);
const uid = (s: string) => `${s}-${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const ingestBodies = (requests: Request[]) => requests.filter((r) => r.url().endsWith('/v1/ingest/log')).map((r) => r.postData() ?? '');

describe('the web library in Chromium', () => {
  const h = webSdkHarness('websdk');
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  it('SPA navigation: page events per path change (not for replaceState), with durations and render times', async () => {
    const ctx = await h.context();
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
    for (const e of pages) {
      expect(typeof e.props.render_time).toBe('number');
      expect(e.warnings).toEqual([]);
    }
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
    const catalog = seen.filter((r) => r.url().endsWith('/v1/ingest/catalog/user')).map((r) => JSON.parse(r.postData() ?? '[]') as object[]);
    expect(catalog).toEqual([[expect.objectContaining({ id: user, name: 'Amina', country: 'Kenya' })]]);
    await ctx.close();
  });
});

