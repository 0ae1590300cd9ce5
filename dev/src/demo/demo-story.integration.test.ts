import { resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { createLogger, KeyRing } from '@evp/core';
import { requireProgram, uniqueName, waitFor } from '@evp/testkit';
import { createEmbeddedParts } from '../embedded-parts';
import { startPipeline, type RunningPipeline } from '../pipeline';
import { API_KEY, SDK_KEY } from '../testing/scenario';

/** docs/sdk-web.md's pictures of the shop and of the campaign's message are taken by this test (`npm run screenshots`). */
const IMG = resolve(__dirname, '../../../docs/img');

/** The campaign of docs/sdk-web.md, "The demo shop" (the worked example of docs/campaigns.md, adapted). */
const SEGMENT = { name: 'Viewed the refill page', definition: { event: 'page', where: [{ prop: 'path', op: 'eq', value: '/demo/refill' }], within: 'P7D' } };
const campaign = (segmentId: string) => ({
  name: 'Refill reminder',
  trigger: { segment_entry: segmentId },
  action: {
    type: 'message',
    render_method: 'in_app_message',
    delivery_mode: 'one-off',
    content: { title: '{{ catalog.drug["D-1"].name }} is ready', body: 'Hi {{ user.name }}, your refill is waiting.' },
    attr: { cta_label: 'Add to cart', cta_type: 'add_to_cart', cta_id: 'D-1' },
    tags: ['refill'],
    expires_after: 'P1D',
  },
  goal: { event: 'checkout', where: [{ prop: 'is_successful', op: 'eq', value: true }], within: 'P3D' },
});

/** The shop's app in enforce, as `npm start` runs it (dev-keys.ts), with the key its server signs user tokens with. */
const TOKEN_KEY = { kid: 'e2e-user-tokens', secret: 'the-demo-shop-secret-of-at-least-32-bytes' };
const enforced = () =>
  new KeyRing({
    keys: [
      { id: 'e2e-sdk', app_id: 'e2e-app', role: 'sdk', key: SDK_KEY },
      { id: 'e2e-api', app_id: 'e2e-app', role: 'api', key: API_KEY },
      { id: TOKEN_KEY.kid, app_id: 'e2e-app', role: 'user_token', alg: 'HS256', key: TOKEN_KEY.secret },
    ],
    apps: { 'e2e-app': { user_tokens: 'enforce' } },
  });

/**
 * The demo shop's story as a newcomer lives it, in headless Chromium against the embedded pipeline
 * `npm start` runs: open /demo (its drugs seeded into the drug catalog), sign in, click around and
 * see the events in the inspector API; paste the campaign; open the refill page, see the campaign's
 * message appear, click it (the shop adds the drug to the cart), check out; the campaign report
 * counts the delivery, the shown and open responses and the conversion.
 */
describe('the demo shop story in Chromium', () => {
  let pipeline: RunningPipeline;
  let browser: Browser;
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database: uniqueName('demo').replace(/-/g, '_') });
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${pipeline.baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${API_KEY}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const events = async (user: string) =>
    (
      (await api('GET', `/v1/inspect/events?user_id=${user}&limit=1000`)).body.data as { name: string; property: string; props: Record<string, any> }[]
    ).reverse();

  beforeAll(async () => {
    pipeline = await startPipeline({
      parts,
      keys: enforced(),
      logger: createLogger('demo', 'silent'),
      sinkFlushMs: 50,
      demo: { sdkKey: SDK_KEY, userTokenKey: TOKEN_KEY },
    });
    browser = await chromium.launch({ executablePath: requireProgram('chromium'), args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  });
  afterAll(async () => {
    await browser?.close();
    await pipeline?.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
  });

  it('is the app’s own site, not a console page: its own nav, no API key prompt, the inspector one link away (docs/console.md)', async () => {
    const page = await browser.newPage();
    await page.goto(`${pipeline.baseUrl}/demo`);
    await page.locator('#login-name').waitFor();
    expect(await page.locator('header nav a').evaluateAll((as) => as.map((a) => [a.textContent?.replace(/\s+/g, ' '), a.getAttribute('href')]))).toEqual([
      ['Shop', '/demo'],
      ['Refills', '/demo/refill'],
      ['Cart (0)', '/demo/cart'],
    ]);
    expect([
      await page.locator('input[type="password"], #key, #connect, [data-nav="inspector"]').count(),
      await page.evaluate(() => Object.keys(sessionStorage)),
    ]).toEqual([0, []]);
    expect(await page.locator('footer a').getAttribute('href')).toBe('/inspector');
    await page.close();
  });

  it('browse, see the events, paste the campaign, see its message, click it, check out: the report counts each step', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    // Every upload's and pull's answer, and the request ids of the uploads (their verdicts are read at the end).
    const answers: [string, number][] = [];
    const uploads: Promise<string | undefined>[] = [];
    page.on('response', (r) => {
      const path = new URL(r.url()).pathname;
      if (r.request().method() !== 'POST' || !/^\/v1\/(ingest|action\/sdk)\//.test(path)) return;
      answers.push([path, r.status()]);
      if (r.status() === 200 && path.startsWith('/v1/ingest/'))
        uploads.push(
          r.json().then(
            (b: { request_id?: string }) => b.request_id,
            () => undefined,
          ),
        );
    });
    page.on('console', (m) => void (m.type() === 'error' ? problems.push(m.text()) : undefined));
    page.on('pageerror', (e) => void problems.push(e.message));
    // Chromium under automation says so (navigator.webdriver, a HeadlessChrome user agent), and the
    // web library's bot filter (on by default, docs/sdk-web.md) would record nothing: this robot plays a person.
    await page.addInitScript(() => {
      const ua = navigator.userAgent.replace('HeadlessChrome', 'Chrome');
      Object.defineProperty(Navigator.prototype, 'webdriver', { get: () => false });
      Object.defineProperty(Navigator.prototype, 'userAgent', { get: () => ua });
    });
    await page.goto(`${pipeline.baseUrl}/demo`);

    // The drugs seeded into the app's (empty) drug catalog on start, listed once stored.
    await page.locator('[data-add="D-4"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('.card h3').allTextContents()).toEqual(['Amoxicillin', 'Paracetamol', 'Ibuprofen', 'Oral rehydration salts']);

    // Sign in (identify login + the user catalog record with the name), then click around.
    await page.locator('#login-name').fill('Amina');
    await page.locator('#login-btn').click();
    await page.locator('#who').getByText('Signed in as Amina').waitFor();
    await page.screenshot({ path: resolve(IMG, 'demo-shop.png') });
    const user = 'shopper-amina';
    await page.locator('[data-add="D-2"]').click();
    await page.locator('#nav-cart').click();
    await page.getByText('Total: 120 KES').waitFor();

    // What the inspector shows of it: the login, the cart event, the page views (with durations).
    const browsed = await waitFor(
      async () => {
        const e = await events(user);
        return e.some((x) => x.name === 'page' && x.props.path === '/demo') && e.some((x) => x.name === 'cart') ? e : undefined;
      },
      { timeoutMs: 30_000, what: 'the browsing events in the inspector' },
    );
    expect(browsed.filter((e) => e.name === 'identify').map((e) => e.props.action)).toEqual(['login']);
    expect(browsed.filter((e) => e.name === 'cart').map((e) => [e.props.action, e.props.item.id, e.props.cart_price, e.props.currency])).toEqual([
      ['add_item', 'D-2', 120, 'KES'],
    ]);
    expect(browsed.find((e) => e.name === 'page' && e.props.path === '/demo')?.props.duration).toBeGreaterThan(0);

    // Paste the campaign (API key): a segment of refill-page viewers, a campaign on entering it.
    const segment = await api('POST', '/v1/segments', SEGMENT);
    expect(segment.status).toBe(201);
    const created = await api('POST', '/v1/campaigns', campaign(segment.body.id as string));
    expect(created.status).toBe(201);
    const campaignId = created.body.id as string;
    // The message reads the user's name from the user catalog, stored from the sign-in.
    const preview = await waitFor(
      async () => {
        const p = await api('POST', '/v1/campaigns/preview', { campaign: campaignId, user_id: user });
        return p.body.outcome === 'requested' ? p.body : undefined;
      },
      { timeoutMs: 30_000, what: 'the preview to be requested' },
    );
    expect(preview.action.content).toEqual({ title: 'Amoxicillin is ready', body: 'Hi Amina, your refill is waiting.' });
    expect((await api('POST', `/v1/campaigns/${campaignId}/resume`)).status).toBe(200);

    // The refill page, then back to the shop: the library logs the refill page view as she leaves it
    // (with its duration), Amina enters the segment, the campaign makes her message, the shop shows it.
    await page.locator('#nav-refill').click();
    await page.getByText('Your refills').waitFor();
    await page.locator('nav a[href="/demo"]').click();
    await page.locator('evp-message').waitFor({ timeout: 60_000 });
    await page.screenshot({ path: resolve(IMG, 'demo-message.png') });
    // The message's call to action has the focus: Enter opens it; the shop (onAction) adds D-1 to the cart.
    await page.keyboard.press('Enter');
    await page.locator('evp-message').waitFor({ state: 'detached' });
    await page.getByText('Total: 570 KES').waitFor();
    expect(await page.locator('table td:first-child').allTextContents()).toEqual(['Paracetamol', 'Amoxicillin']);
    await page.locator('#checkout').click();
    await page.getByText('Thank you!').waitFor();

    // The report counts the delivery, the shown and open responses, and the order (the goal).
    const report = await waitFor(
      async () => {
        const r = await api('GET', `/v1/campaigns/${campaignId}/report`);
        const v = r.body.variants?.[0];
        return v?.delivered === 1 && v.responses.open === 1 && v.converted === 1 ? r.body : undefined;
      },
      { timeoutMs: 60_000, what: 'the report to count the open and the order' },
    );
    expect(report.variants).toHaveLength(1);
    expect(report.variants[0]).toMatchObject({
      variant: 1,
      audience: 1,
      runs: 1,
      requested: 1,
      skipped: { total: 0, reasons: {} },
      created: 1,
      delivered: 1,
      withdrawn: 0,
      expired: 0,
      responses: { shown: 1, open: 1, discard: 0, block: 0, error: 0, expired: 0 },
      converted: 1,
      conversion_rate: 1,
    });
    expect(report.control).toMatchObject({ audience: 0, converted: 0 });
    // The order as the inspector shows it: both drugs, paid in full.
    const orders = (await events(user)).filter((e) => e.name === 'checkout');
    expect(orders.map((e) => [e.props.cart_price, e.props.items.map((i: { id: string }) => i.id), e.props.is_successful])).toEqual([
      [570, ['D-2', 'D-1'], true],
    ]);
    expect(problems).toEqual([]);

    // Under enforce, with the tokens the shop's server signed: no upload or pull was refused, and no
    // event of the shopper was rejected for its token (nor warned about).
    expect(answers.filter(([, status]) => status !== 200)).toEqual([]);
    expect(answers.some(([path]) => path === '/v1/action/sdk/pull')).toBe(true);
    const ids = (await Promise.all(uploads)).filter((id): id is string => id !== undefined);
    const verdicts = await Promise.all(
      ids.map((id) =>
        waitFor(
          async () => {
            const r = await fetch(`${pipeline.baseUrl}/v1/ingest/requests/${id}`, { headers: { Authorization: `Bearer ${SDK_KEY}` } });
            const b = (await r.json()) as {
              status?: string;
              events: { user_id: string; status: string; reasons?: { rule: string }[]; warnings?: { rule: string }[] }[];
            };
            return b.status === 'complete' ? b : undefined;
          },
          { timeoutMs: 30_000, what: `the verdicts of ${id}` },
        ),
      ),
    );
    const judged = verdicts.flatMap((v) => v.events);
    expect(judged.filter((e) => e.user_id === user).length).toBeGreaterThan(5);
    expect(judged.filter((e) => e.status !== 'accepted' || JSON.stringify(e).includes('user_token'))).toEqual([]);
    expect((await api('GET', `/v1/inspect/rejected?user_id=${user}`)).body.data).toEqual([]);
    await page.close();
  });
});
