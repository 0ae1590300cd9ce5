import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { requireProgram, uniqueName, waitFor } from '@evp/testkit';
import { createEmbeddedParts } from './embedded-parts';
import type { RunningPipeline } from './pipeline';
import { patientUpload, privacyKeys, startPrivacyPipeline } from './testing/privacy-app';

const IMG = resolve(__dirname, '../../docs/img');
const { app: APP, sdk: SDK, api: API, otherApi: OTHER_API, apiKeyId } = privacyKeys('cp');
// Ids are free text: the pages must show them as text, never as markup.
const GONE = '<b>u-gone</b>';
const KEPT = 'u-kept';

/**
 * The console's Privacy and Access log pages in headless Chromium on `npm start`'s composition:
 * an erasure created on the page (confirmed, naming its count) reaches `completed` with a row per
 * store; an export downloads from the page and its lines are its `rows`; that download is on the
 * Access log page once; another app's key sees none of it. Screenshots docs/img/console-privacy.png
 * and docs/img/console-audit.png.
 */
describe('the console Privacy and Access log pages in Chromium', () => {
  let pipeline: RunningPipeline;
  let browser: Browser;
  let page: Page;
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database: uniqueName('cprivacy').replace(/-/g, '_') });

  beforeAll(async () => {
    pipeline = await startPrivacyPipeline(parts, 'cp', 'console-privacy-test-key-0123456789abcdef');
    browser = await chromium.launch({ executablePath: requireProgram('chromium'), args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    page = await browser.newPage({ viewport: { width: 1100, height: 900 }, acceptDownloads: true });
  });
  afterAll(async () => {
    await browser?.close();
    await pipeline?.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
  });

  const upload = async (user: string, n: number) => {
    const res = await fetch(`${pipeline.baseUrl}/v1/ingest/log`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${SDK}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(patientUpload(user, n)),
    });
    expect(res.status).toBe(200);
  };
  const stored = (user: string, n: number) =>
    waitFor(
      async () => {
        const [r] = await parts.analytics.query<{ n: number }>('SELECT count() AS n FROM events WHERE app_id = {a:String} AND user_id = {u:String}', {
          a: APP,
          u: user,
        });
        return Number(r?.n) === n ? true : undefined;
      },
      { timeoutMs: 30_000, what: `${n} events of ${user}` },
    );
  const cells = (testid: string, scope = page.locator('body')) =>
    scope
      .getByTestId(testid)
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent)));
  const connect = async (path: string, key: string) => {
    await page.goto(`${pipeline.baseUrl}${path}`);
    await page.getByTestId('key').fill(key);
    await page.getByTestId('connect').click();
  };

  it('erases on the page, downloads an export whose lines are its rows, and the download is in the access log once', async () => {
    await upload(GONE, 2);
    await upload(KEPT, 3);
    await stored(GONE, 2);
    await stored(KEPT, 3);

    await connect('/console/privacy', API);
    await page.getByTestId('export-table').waitFor();
    await page.getByTestId('erase-users').fill(`${GONE}\n`);
    await page.getByTestId('erase-patients').fill('p-9');
    await page.getByTestId('erase').click();
    expect(await page.getByTestId('erase-question').textContent()).toBe('Erase all data of 2 ids (1 user, 1 patient)? This cannot be undone.');
    await page.getByTestId('erase-yes').click();
    const erasure = page.locator('[data-erasure-id][data-state="completed"]');
    await erasure.waitFor({ timeout: 60_000 });
    const heading = await erasure.locator('h3').textContent();
    const stores = await cells('stores', erasure);
    expect(heading).toBe(`completed · ${stores.length} of ${stores.length} stores done · 1 user, 1 patient ids`);
    const events = stores.find((r) => r[0] === 'clickhouse.events');
    expect([events?.[1], events?.[3], events?.[4], events?.[5]]).toEqual(['completed', '2', '0', '0']);
    expect(stores.every((r) => r[1] === 'completed' && r[4] === '0')).toBe(true);
    expect(await page.locator('b').count()).toBe(0);

    // An export of the kept user, downloaded from the page.
    await page.getByTestId('export-id').fill(KEPT);
    await page.getByTestId('export').click();
    const row = page.getByTestId('export-table').locator('tbody tr', { hasText: 'completed' });
    await row.waitFor({ timeout: 30_000 });
    const [exportRow] = await cells('export-table');
    const [id, kind, state, rows] = exportRow!;
    expect([kind, state]).toEqual(['user', 'completed']);
    // 3 events and the upload's receipt.
    expect(rows).toBe('4');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(`download-${id}`).click()]);
    const lines = readFileSync(await download.path(), 'utf8')
      .trimEnd()
      .split('\n');
    expect(lines.length).toBe(Number(rows));
    expect(lines.filter((l) => l.startsWith('{"store":"clickhouse.events"')).length).toBe(3);
    await page.screenshot({ path: resolve(IMG, 'console-privacy.png'), fullPage: true });

    // The download, once, on the Access log page (filtered by its route), and the chain holds.
    await connect('/console/audit', API);
    await page.getByTestId('f-route').fill('GET /v1/privacy/exports/{id}/data');
    await page.getByTestId('filter').click();
    await page.getByTestId('read-table').locator('tbody tr').first().waitFor();
    const reads = await cells('read-table');
    expect(reads.map((r) => [r[2], r[3], r[4], r[6]])).toEqual([['GET /v1/privacy/exports/{id}/data', 'api', apiKeyId, rows]]);
    expect(reads[0]![5]).toMatch(/^[0-9a-f]{64}$/);
    await page
      .getByTestId('chain')
      .getByText(/chain holds/)
      .waitFor();
    await page.screenshot({ path: resolve(IMG, 'console-audit.png'), fullPage: true });

    // Another app's key: no reads, no erasure, no export.
    await connect('/console/audit', OTHER_API);
    await page.getByTestId('chain').getByText('· chain holds: 0 entries').waitFor();
    expect(await cells('read-table')).toEqual([]);
    await connect('/console/privacy', OTHER_API);
    await page.getByTestId('export-table').waitFor();
    expect([await page.locator('[data-erasure-id]').count(), await cells('export-table'), await cells('suppression-table')]).toEqual([0, [], []]);
  }, 180_000);
});
