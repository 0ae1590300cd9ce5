import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { KeyRing, createLogger, type KeysFile } from '@evp/core';
import { watchKeysFile, type KeysReloader } from '@evp/http';
import { requireProgram, uniqueName } from '@evp/testkit';
import { createEmbeddedParts } from './embedded-parts';
import { startPipeline, type RunningPipeline } from './pipeline';
import { API_KEY, OTHER_API_KEY, SDK_KEY } from './testing/scenario';

const OLD_SDK_KEY = 'sdk_e2e_old_0123456789abcdef';
const MARKUP_ID = '<b>ci</b>';

const keysFile = (sdkRevokedAt?: string): KeysFile => ({
  keys: [
    { id: 'e2e-sdk', app_id: 'e2e-app', role: 'sdk', key: SDK_KEY, created_at: '2026-11-20T09:00:00Z', ...(sdkRevokedAt ? { revoked_at: sdkRevokedAt } : {}) },
    { id: 'e2e-api', app_id: 'e2e-app', role: 'api', key: API_KEY, created_at: '2026-11-20T09:00:00Z' },
    { id: 'e2e-sdk-old', app_id: 'e2e-app', role: 'sdk', key: OLD_SDK_KEY, created_at: '2026-01-05T12:00:00Z', revoked_at: '2026-11-20T09:05:00Z' },
    // An id is free text: the page must show it as text, never as markup.
    { id: MARKUP_ID, app_id: 'e2e-app', role: 'analyst', sha256: 'a'.repeat(64) },
    { id: 'other-api', app_id: 'other-app', role: 'api', key: OTHER_API_KEY },
  ],
});

/**
 * The console's Keys page in headless Chromium, on `npm start`'s pipeline with its keys read from a
 * file that is reloaded on change: the app's keys by id and role with their last use, never a
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
    for (const secret of [SDK_KEY, API_KEY, OLD_SDK_KEY, 'a'.repeat(64), OTHER_API_KEY, 'other-api']) expect(html).not.toContain(secret);
    await page.screenshot({ path: resolve(__dirname, '../../docs/img/console-keys.png') });

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
