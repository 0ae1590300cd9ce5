import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { KeyRing, createLogger, type KeysFile } from '@evp/core';
import { watchKeysFile, type KeysReloader } from '@evp/http';
import { requireProgram, signUserToken, uniqueName } from '@evp/testkit';
import { createEmbeddedParts } from './embedded-parts';
import { startPipeline, type RunningPipeline } from './pipeline';
import { API_KEY, OTHER_API_KEY, SDK_KEY } from './testing/scenario';
import { sdkPullBody } from './testing/one-event';

const OLD_SDK_KEY = 'sdk_e2e_old_0123456789abcdef';
const MARKUP_ID = '<b>ci</b>';
const TOKEN_SECRET = 'hs256-secret-of-the-e2e-app-server-0123456789';

const keysFile = (sdkRevokedAt?: string): KeysFile => ({
  keys: [
    { id: 'e2e-sdk', app_id: 'e2e-app', role: 'sdk', key: SDK_KEY, created_at: '2026-11-20T09:00:00Z', ...(sdkRevokedAt ? { revoked_at: sdkRevokedAt } : {}) },
    { id: 'e2e-api', app_id: 'e2e-app', role: 'api', key: API_KEY, created_at: '2026-11-20T09:00:00Z' },
    { id: 'e2e-sdk-old', app_id: 'e2e-app', role: 'sdk', key: OLD_SDK_KEY, created_at: '2026-01-05T12:00:00Z', revoked_at: '2026-11-20T09:05:00Z' },
    // An id is free text: the page must show it as text, never as markup.
    { id: MARKUP_ID, app_id: 'e2e-app', role: 'analyst', sha256: 'a'.repeat(64) },
    { id: 'other-api', app_id: 'other-app', role: 'api', key: OTHER_API_KEY },
    { id: 'e2e-user-tokens', app_id: 'e2e-app', role: 'user_token', alg: 'HS256', key: TOKEN_SECRET, created_at: '2026-11-20T09:00:00Z' },
  ],
  // Report: every call goes through, and what enforce would refuse is counted.
  apps: { 'e2e-app': { user_tokens: 'report' } },
});

/**
 * The console's Keys page in headless Chromium, on `npm start`'s pipeline with its keys read from a
 * file that is reloaded on change: the app's user token policy, signing key and the exact counts of
 * a scripted sequence of token calls; the app's keys by id and role with their last use, never a
 * secret, never another app's; a revocation written to the file shows on the page and refuses the
 * key without a restart. The screenshot is docs/img/console-keys.png.
 */
describe('the console Keys page in Chromium', () => {
  let pipeline: RunningPipeline;
  let browser: Browser;
  let page: Page;
  let reloader: KeysReloader;
  const dir = mkdtempSync(join(tmpdir(), 'console-keys-'));
  const path = join(dir, 'keys.json');
  const write = (f: KeysFile) => {
    writeFileSync(`${path}.tmp`, JSON.stringify(f));
    renameSync(`${path}.tmp`, path);
  };
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database: uniqueName('consolekeys').replace(/-/g, '_') });

  beforeAll(async () => {
    write(keysFile());
    const keys = KeyRing.fromFile(path);
    reloader = watchKeysFile({ path, ring: keys, logger: createLogger('console-keys', 'silent'), intervalMs: 100 });
    pipeline = await startPipeline({ parts, keys, logger: createLogger('console-keys', 'silent'), sinkFlushMs: 50 });
    browser = await chromium.launch({ executablePath: requireProgram('chromium'), args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    page = await browser.newPage({ viewport: { width: 900, height: 420 } });
  });
  afterAll(async () => {
    reloader?.close();
    await browser?.close();
    await pipeline?.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
  });

  const upload = (key: string) =>
    fetch(`${pipeline.baseUrl}/v1/ingest/log`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        id: 'u-keys',
        tz: '+00:00',
        internal: { s_id: 'u-keys_1700000000000_0', sdk: 'web/1.0.0', a_id: 'e2e-app', a_ver: '1.0.0 (1)', d_id: 'd-1', os: 'web' },
        data: [
          { time: '2025-03-14 10:00:00.000', __ol: true, name: 'page', property: 'Home', ctx: { path: '/', title: 'Home', duration: 1.5, render_time: 120 } },
        ],
      }),
    });
  const rows = () =>
    page
      .getByTestId('keys')
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent)));

  const pull = (token?: string) =>
    fetch(`${pipeline.baseUrl}/v1/action/sdk/pull`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${SDK_KEY}`,
        'Content-Type': 'application/json',
        ...(token === undefined ? {} : { 'X-EVP-User-Token': token }),
      },
      body: JSON.stringify({ ...sdkPullBody, user_id: 'u-tok' }),
    });
  const token = (exp: number) => signUserToken({ sub: 'u-tok', aud: 'e2e-app', iat: exp - 600, exp }, { kid: 'e2e-user-tokens', secret: TOKEN_SECRET });

  // First: the upload of the next test (no token, under report) is counted too.
  it('shows the user token policy, signing key and the exact counts of 3 valid, 2 missing and 1 expired token calls under report', async () => {
    const now = Math.floor(Date.now() / 1000);
    const calls = [token(now + 600), token(now + 600), token(now + 600), undefined, undefined, token(now - 3600)];
    const statuses = [];
    for (const t of calls) statuses.push((await pull(t === undefined ? undefined : await t)).status);
    // Report refuses nothing.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);

    await page.setViewportSize({ width: 900, height: 1000 });
    await page.goto(`${pipeline.baseUrl}/console/keys`);
    await page.getByTestId('key').fill(API_KEY);
    await page.getByTestId('connect').click();
    const sentence = 'Policy report: 3 calls would have been refused under enforce in the last hour.';
    await page.getByTestId('token-sentence').getByText(sentence).waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('token-policy').textContent()).toBe('· report');
    const cells = (testid: string) =>
      page
        .getByTestId(testid)
        .locator('tbody tr')
        .evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent)));
    expect(await cells('token-key-table')).toEqual([['e2e-user-tokens', 'HS256', '2026-11-20T09:00:00Z', 'active']]);
    expect(await cells('outcome-table')).toEqual([
      ['valid', '3', 'passes'],
      ['anonymous (anon: id)', '0', 'passes'],
      ['missing (user_token_required)', '2', 'refused'],
      ['invalid (user_token_invalid)', '0', 'refused'],
      ['expired (user_token_expired)', '1', 'refused'],
      ['another user (user_token_mismatch)', '0', 'refused'],
    ]);
    // What the chart draws: the same counts, in the same order.
    const drawn = await page.getByTestId('outcomes-chart').evaluate((c) => {
      const chart = (window as unknown as { Chart: { getChart(c: Element): { data: { datasets: { data: number[] }[] } } } }).Chart.getChart(c);
      return chart.data.datasets[0]!.data;
    });
    expect(drawn).toEqual([3, 0, 2, 0, 1, 0]);
    expect(await page.content()).not.toContain(TOKEN_SECRET);
    await page.screenshot({ path: resolve(__dirname, '../../docs/img/console-keys.png'), fullPage: true });
  });

  it('lists the app’s keys by id and role with their last use, and shows a revocation written to the file', async () => {
    expect((await upload(SDK_KEY)).status).toBe(200);
    expect((await upload(OLD_SDK_KEY)).status).toBe(401);

    await page.goto(`${pipeline.baseUrl}/console/keys`);
    await page.getByTestId('key').fill(API_KEY);
    await page.getByTestId('connect').click();
    await page.getByText('4 keys · updated').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('app').textContent()).toBe('· e2e-app');
    const shown = await rows();
    // By id; the SDK key's upload and the page's own request are uses; the revoked and the analyst key have none.
    expect(shown.map((r) => r.slice(0, 4))).toEqual([
      [MARKUP_ID, 'analyst', '—', 'active'],
      ['e2e-api', 'api', '2026-11-20T09:00:00Z', 'active'],
      ['e2e-sdk', 'sdk', '2026-11-20T09:00:00Z', 'active'],
      ['e2e-sdk-old', 'sdk', '2026-01-05T12:00:00Z', 'revoked 2026-11-20T09:05:00Z'],
    ]);
    expect(shown.map((r) => /^\d+ s ago$/.test(r[4] ?? '') || r[4])).toEqual(['never', true, true, 'never']);
    // Text, not markup: the id's tags are characters in the cell, and no element was made of them.
    expect(await page.getByTestId('keys').locator('b').count()).toBe(0);
    // Never a secret: neither the keys nor the digest reach the page.
    const html = await page.content();
    for (const secret of [SDK_KEY, API_KEY, OLD_SDK_KEY, 'a'.repeat(64), OTHER_API_KEY, 'other-api', TOKEN_SECRET]) expect(html).not.toContain(secret);

    // Revoked in the file, no restart: refused within the reload interval, and the page shows it on its next refresh.
    const revokedAt = new Date(Date.now() - 1_000).toISOString();
    write(keysFile(revokedAt));
    const deadline = Date.now() + 5_000;
    let answer = await upload(SDK_KEY);
    while (answer.status === 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      answer = await upload(SDK_KEY);
    }
    expect([answer.status, ((await answer.json()) as { error: { code: string } }).error.code]).toEqual([401, 'key_revoked']);
    await page.locator('tr[data-key-id="e2e-sdk"] td.state', { hasText: `revoked ${revokedAt}` }).waitFor({ timeout: 10_000 });
  });

  it('answers an SDK key forbidden_role, and another app’s API key only its own app’s keys', async () => {
    const list = async (key: string) => {
      const res = await fetch(`${pipeline.baseUrl}/v1/keys`, { headers: { Authorization: `Bearer ${key}` } });
      return [res.status, (await res.json()) as Record<string, any>] as const;
    };
    const [status, body] = await list(OTHER_API_KEY);
    expect([status, body.app_id, body.data.map((k: { id: string }) => k.id)]).toEqual([200, 'other-app', ['other-api']]);
    write(keysFile());
    const deadline = Date.now() + 5_000;
    let sdk = await list(SDK_KEY);
    while (sdk[0] === 401 && Date.now() < deadline) sdk = await list(SDK_KEY);
    expect([sdk[0], sdk[1].error.code]).toEqual([403, 'forbidden_role']);
  });
});
