import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createLogger, topics } from '@evp/core';
import { requireProgram, uniqueName } from '@evp/testkit';
import { createEmbeddedParts } from './embedded-parts';
import { startPipeline, type RunningPipeline } from './pipeline';
import { API_KEY, SDK_KEY, e2eKeys } from './testing/scenario';

/**
 * The inspector as a person uses it, in headless Chromium: open /inspector on the one base URL, give
 * the API key, upload a good and a bad event, and watch both appear without a reload — the event
 * under Events, the rejection under Rejections with its reason.
 */
describe('the inspector page in Chromium', () => {
  let pipeline: RunningPipeline;
  let browser: Browser;
  let page: Page;
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database: uniqueName('inspector').replace(/-/g, '_') });
  const user = `u-${Date.now().toString(36)}`;

  beforeAll(async () => {
    pipeline = await startPipeline({ parts, keys: e2eKeys(), logger: createLogger('inspector', 'silent'), sinkFlushMs: 50 });
    browser = await chromium.launch({ executablePath: requireProgram('chromium'), args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await pipeline?.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
  });

  it('shows an uploaded event and a rejected one, with its reason, live', async () => {
    await page.goto(`${pipeline.baseUrl}/inspector`);
    await page.getByTestId('key').fill(API_KEY);
    await page.getByTestId('user').fill(user);
    await page.getByTestId('connect').click();
    await page.getByText('Live: updated').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('events').locator('li.event').count()).toBe(0);

    const res = await fetch(`${pipeline.baseUrl}/v1/ingest/log`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${SDK_KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        id: user,
        tz: '+00:00',
        internal: { s_id: `${user}_1700000000000_0`, sdk: 'web/1.0.0', a_id: 'e2e-app', a_ver: '1.0.0 (1)', d_id: 'd-1', os: 'web' },
        data: [
          { time: '2025-03-14 10:00:00.000', __ol: true, name: 'page', property: 'Home', ctx: { path: '/', title: 'Home', duration: 1.5, render_time: 120 } },
          { time: '2025-03-14 10:00:01.000', __ol: true, name: 'rate', property: 'x', ctx: { rate_value: 9, type: 'app', subject_id: 's' } },
        ],
      }),
    });
    expect(res.status).toBe(200);

    // No reload: the page's own polling brings both in.
    const event = page.getByTestId('events').locator('li.event');
    await event.first().waitFor({ timeout: 20_000 });
    const rejection = page.getByTestId('rejected').locator('li.rejection');
    await rejection.first().waitFor({ timeout: 20_000 });
    expect(await event.count()).toBe(1);
    expect(await event.first().locator('.name').textContent()).toBe('page');
    expect(await event.first().locator('.meta').textContent()).toContain(`user ${user}`);
    expect(await rejection.count()).toBe(1);
    expect(await rejection.first().locator('.name').textContent()).toBe('rate · schema_violation');
    expect(await rejection.first().locator('.reason').textContent()).toBe('range $.data[1].ctx.rate_value: must be ≤ 5');
    expect([await page.getByTestId('event-count').textContent(), await page.getByTestId('rejected-count').textContent()]).toEqual(['1', '1']);
    await page.screenshot({ path: join(tmpdir(), 'inspector.png') });
  });

  it('shows a dead letter of the app live, and /metrics counts it by source topic and group', async () => {
    // A malformed actions.requested message (not JSON) for the app: the action store's consumer
    // dead-letters it (it used to log and skip it), the sink stores it, the page shows it.
    const producer = await parts.bus.producer();
    await producer.send(topics.actionsRequested, [{ key: 'e2e-app', value: Buffer.from('not json') }]);
    await producer.close();
    const letter = page.getByTestId('deadletters').locator('li.deadletter');
    await letter.first().waitFor({ timeout: 20_000 });
    expect(await letter.count()).toBe(1);
    expect(await letter.first().locator('.name').textContent()).toBe('actions.requested · unreadable');
    expect(await letter.first().locator('.meta').textContent()).toContain('group action-store.requests · action-store/0.1.0 · id ');
    expect(await letter.first().locator('.payload').textContent()).toBe('not json');
    expect(await page.getByTestId('deadletter-count').textContent()).toBe('1');
    const metrics = await (await fetch(`${pipeline.baseUrl}/metrics`)).text();
    expect(metrics).toContain('dead_letters_total{source_topic="actions.requested",group="action-store.requests"} 1');
  });

  it('says why it is not updating when the key is refused', async () => {
    await page.getByTestId('key').fill(SDK_KEY);
    await page.getByTestId('connect').click();
    await page.getByText(/Not updating: This operation needs a key of role 'api'/).waitFor({ timeout: 10_000 });
  });
});
