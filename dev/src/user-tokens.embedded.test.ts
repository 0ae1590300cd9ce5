import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@evp/core';
import { watchKeysFile, type KeysReloader } from '@evp/http';
import { signUserToken, uniqueName, waitFor } from '@evp/testkit';
import { loadOrCreateDevKeys, type DevKeys } from './dev-keys';
import { createEmbeddedParts } from './embedded-parts';
import { startPipeline, type RunningPipeline } from './pipeline';

/**
 * Black box over HTTP on `npm start`'s composition and keys file (dev-keys.ts, reloaded every 2 s as
 * main.ts does): switching the app to enforce in the file makes the pulls and uploads need the user's
 * token within the reload interval, with no restart; the upload's other events are kept; the last
 * hour's counts (GET /v1/keys/user-tokens) add up the gateway's and the action store's checks.
 */
describe('user tokens, switched on in the keys file (embedded pipeline)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evp-user-tokens-'));
  const path = join(dir, 'keys.local.json');
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database: uniqueName('tokens').replace(/-/g, '_') });
  let keys: DevKeys;
  let reloader: KeysReloader;
  let pipeline: RunningPipeline;
  const run = Date.now().toString(36);
  const alice = `alice-${run}`;
  const mallory = `mallory-${run}`;

  const token = (sub: string) => {
    const now = Math.floor(Date.now() / 1000);
    return signUserToken({ sub, aud: keys.appId, iat: now, exp: now + 600 }, keys.userTokenKey);
  };
  const pull = async (userId: string, userToken?: string) => {
    const res = await fetch(`${pipeline.baseUrl}/v1/action/sdk/pull`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${keys.sdkKey}`, 'Content-Type': 'application/json', ...(userToken ? { 'X-EVP-User-Token': userToken } : {}) },
      body: JSON.stringify({ user_id: userId, type: 'message', render_method: 'push_notification', delivery_mode: 'one-off' }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const envelope = (user: string) => ({
    id: user,
    tz: '+00:00',
    internal: { s_id: `${user}_1700000000000_0`, sdk: 'web/1.0.0', a_id: 'demo', a_ver: '1.0.0 (1)', d_id: 'd-1', os: 'web' },
    data: [{ time: '2025-03-14 10:00:00.000', __ol: true, name: 'page', property: 'Home', ctx: { path: '/', title: 'Home', duration: 1.5, render_time: 120 } }],
  });
  const verdicts = (requestId: string) =>
    waitFor(
      async () => {
        const res = await fetch(`${pipeline.baseUrl}/v1/ingest/requests/${requestId}`, { headers: { Authorization: `Bearer ${keys.sdkKey}` } });
        const body = (await res.json()) as Record<string, any>;
        return body.status === 'complete' ? body : undefined;
      },
      { timeoutMs: 20_000, what: `request ${requestId} to be validated` },
    );

  beforeAll(async () => {
    keys = loadOrCreateDevKeys(path);
    reloader = watchKeysFile({ path, ring: keys.ring, logger: createLogger('tokens', 'silent') });
    pipeline = await startPipeline({ parts, keys: keys.ring, logger: createLogger('tokens', 'silent'), sinkFlushMs: 50 });
  });
  afterAll(async () => {
    reloader.close();
    await pipeline.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('npm start’s keys file holds an HS256 user_token key per app, and the demo shop’s app in enforce; the file’s own apps section is kept', async () => {
    const file = JSON.parse(readFileSync(path, 'utf8')) as { keys: { role: string; app_id: string; alg?: string }[]; apps?: unknown };
    expect(file.keys.filter((k) => k.role === 'user_token').map((k) => [k.app_id, k.alg])).toEqual([
      ['demo-app', 'HS256'],
      ['other-app', 'HS256'],
    ]);
    expect(file.apps).toEqual({ 'demo-app': { user_tokens: 'enforce' } });
    expect((await pull(alice)).body.error.code).toBe('user_token_required');
    // An edited policy survives the next start.
    writeFileSync(path, JSON.stringify({ ...file, apps: { 'demo-app': { user_tokens: 'off' } } }, null, 2));
    expect(loadOrCreateDevKeys(path).ring.userTokenPolicy('demo-app')).toBe('off');
    await waitFor(async () => (await pull(alice)).status === 200, { timeoutMs: 5_000, what: 'the pull to be answered under off' });
  });

  it('after the file switches the app to enforce: pulls and uploads need the user’s token within the reload interval', async () => {
    const file = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    writeFileSync(path, JSON.stringify({ ...file, apps: { [keys.appId]: { user_tokens: 'enforce' } } }, null, 2));
    const switched = Date.now();
    await waitFor(async () => (await pull(alice)).status === 401, { timeoutMs: 5_000, what: 'the pull without a token to be refused' });
    // The reloader polls every 2 s: the change applied within one interval (plus a read).
    expect(Date.now() - switched).toBeLessThan(3_000);
    expect((await pull(alice)).body.error.code).toBe('user_token_required');
    expect((await pull(alice, 'not-a-token')).body.error.code).toBe('user_token_invalid');
    expect(await pull(alice, await token(mallory))).toMatchObject({ status: 403, body: { error: { code: 'user_token_mismatch' } } });
    expect(await pull(alice, await token(alice))).toEqual({ status: 200, body: { data: [], more: false } });

    // Mallory, signed in as herself, uploads an event of her own and one forged for Alice.
    const requestId = `req-tokens-${run}`;
    const res = await fetch(`${pipeline.baseUrl}/v1/ingest/log`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${keys.sdkKey}`,
        'Content-Type': 'application/json',
        'X-Request-Id': requestId,
        'X-EVP-User-Token': await token(mallory),
      },
      body: JSON.stringify([envelope(mallory), envelope(alice)]),
    });
    expect(res.status).toBe(200);
    const v = await verdicts(requestId);
    expect(v.counts).toEqual({ events: 2, accepted: 1, rejected: 1, with_warnings: 0 });
    expect(v.events.map((e: Record<string, any>) => [e.user_id, e.status, (e.reasons ?? []).map((r: { rule: string }) => r.rule)])).toEqual([
      [mallory, 'accepted', []],
      [alice, 'rejected', ['user_token_mismatch']],
    ]);
    // The inspector shows the rejection to the app (its API key).
    const rejected = await waitFor(
      async () => {
        const r = await fetch(`${pipeline.baseUrl}/v1/inspect/rejected?user_id=${alice}`, { headers: { Authorization: `Bearer ${keys.apiKey}` } });
        const body = (await r.json()) as { data: Record<string, any>[] };
        return body.data.length > 0 ? body.data : undefined;
      },
      { timeoutMs: 20_000, what: 'the rejection in the inspector' },
    );
    expect(rejected.map((r) => [r.request_id, r.kind, r.reasons.map((x: { rule: string }) => x.rule)])).toEqual([
      [requestId, 'schema_violation', ['user_token_mismatch']],
    ]);

    // The last hour's counts, as the console reads them: the gateway's and the action store's checks
    // in one store. The first refused pull (under off before it, nothing was counted) and the one
    // after it are `required`; the upload counts once, with its refused user (mismatch).
    const res2 = await fetch(`${pipeline.baseUrl}/v1/keys/user-tokens`, { headers: { Authorization: `Bearer ${keys.apiKey}` } });
    const overview = (await res2.json()) as Record<string, any>;
    expect([res2.status, overview.policy, overview.keys.map((k: { id: string; alg: string }) => [k.id, k.alg]), overview.last_hour]).toEqual([
      200,
      'enforce',
      [[keys.userTokenKey.kid, 'HS256']],
      { valid: 1, anonymous: 0, required: 2, invalid: 1, expired: 0, mismatch: 2 },
    ]);
  });
});
