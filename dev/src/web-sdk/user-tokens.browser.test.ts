/// <reference lib="dom" />
import type { Response } from 'playwright-core';
import { KeyRing } from '@evp/core';
import { signUserToken } from '@evp/testkit';
import { API_KEY, SDK_KEY } from '../testing/scenario';
import { call, search, webSdkHarness } from './harness';

/**
 * Issue 39, the web library's side, in Chromium on a page of another origin against the embedded
 * pipeline with the app in `enforce`: user tokens that expire mid-session are renewed through
 * onUserTokenExpired and the refused upload or pull goes again; every event arrives exactly once.
 */
const APP = 'e2e-app';
const KEY = { kid: 'e2e-user-tokens', secret: 'a-test-secret-of-at-least-thirty-two-bytes' };
const enforced = () =>
  new KeyRing({
    keys: [
      { id: 'e2e-sdk', app_id: APP, role: 'sdk', key: SDK_KEY },
      { id: 'e2e-api', app_id: APP, role: 'api', key: API_KEY },
      { id: KEY.kid, app_id: APP, role: 'user_token', alg: 'HS256', key: KEY.secret },
    ],
    apps: { [APP]: { user_tokens: 'enforce' } },
  });

/** A token for `sub` living `seconds` (the platform allows 5 s of clock skew past `exp`). */
const token = async (sub: string, seconds: number) => {
  const iat = Math.floor(Date.now() / 1000);
  return { jwt: await signUserToken({ sub, aud: APP, iat, exp: iat + seconds }, KEY), deadMs: (iat + seconds + 5) * 1000 + 1000 };
};
const untilDead = (deadMs: number) => new Promise((r) => setTimeout(r, Math.max(0, deadMs - Date.now())));

describe('user tokens in Chromium (the app in enforce)', () => {
  const h = webSdkHarness('websdk-tokens', { keys: enforced });
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  it('tokens expire mid-session: onUserTokenExpired renews, the refused upload and pull go again, every event arrives exactly once', async () => {
    const user = `tok-${Date.now().toString(36)}`;
    const ctx = await h.context();
    let renewals = 0;
    let dead = 0;
    await ctx.exposeFunction('__renew', async () => {
      renewals += 1;
      const t = await token(user, 1);
      dead = t.deadMs;
      return t.jwt;
    });
    // What the platform answered each upload and pull: status, error code, request id, token sent.
    const answers: Promise<{ path: string; status: number; code?: string; id?: string; token?: string }>[] = [];
    ctx.on('response', (r: Response) => {
      const path = new URL(r.url()).pathname;
      if (r.request().method() !== 'POST' || !/\/v1\/(ingest\/log|action\/sdk\/pull)$/.test(path)) return;
      answers.push(
        r.json().then((b: { error?: { code?: string }; request_id?: string }) => ({
          path: path.slice(4),
          status: r.status(),
          code: b.error?.code,
          id: b.request_id,
          token: r.request().headers()['x-evp-user-token'],
        })),
      );
    });
    const p = await h.open(ctx, '/', { trackApp: false, trackPages: false, flushIntervalMs: 3_600_000 });
    await p.evaluate(() =>
      (window as unknown as { evp: { onUserTokenExpired: (f: () => Promise<string>) => void } }).evp.onUserTokenExpired(() =>
        (window as unknown as { __renew: () => Promise<string> }).__renew(),
      ),
    );

    // Anonymous first: an `anon:` visitor needs no token, even under enforce.
    await search(p, 'before login');
    await call(p, 'flush');
    const anon = ((await call(p, 'status')) as { user: string }).user;
    expect(anon).toMatch(/^anon:/);
    await h.waitForEvents(anon, 1, 'search');

    // Signed in with a token that dies within seconds.
    const first = await token(user, 1);
    await call(p, 'identify', 'login', user, undefined, { token: first.jwt });
    await search(p, 'a1');
    await search(p, 'a2');
    await call(p, 'flush');
    await untilDead(first.deadMs);
    // The token has expired: the upload is refused (401 user_token_expired, nothing stored), renewed, sent again.
    for (const q of ['b1', 'b2', 'b3']) await search(p, q);
    await call(p, 'flush');
    expect(renewals).toBe(1);
    // The renewed token expires too; the next pull is refused, renewed, and answered.
    await untilDead(dead);
    expect(await call(p, 'fetchActions', { type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off' })).toEqual([]);
    expect(renewals).toBe(2);

    const seen = await Promise.all(answers);
    expect(seen.map((a) => [a.path, a.status, a.code ?? null])).toEqual([
      ['ingest/log', 200, null],
      ['ingest/log', 200, null],
      ['ingest/log', 401, 'user_token_expired'],
      ['ingest/log', 200, null],
      ['action/sdk/pull', 401, 'user_token_expired'],
      ['action/sdk/pull', 200, null],
    ]);
    expect(seen.map((a) => a.token === undefined)).toEqual([true, false, false, false, false, false]);

    // Exactly once: the accepted uploads' verdicts hold each of the user's events once, none rejected.
    const verdicts = await Promise.all(seen.filter((a) => a.status === 200 && a.id).map((a) => h.verdict(a.id!)));
    const mine = verdicts.flatMap((v) => v.events).filter((e) => e.user_id === user);
    expect(mine.map((e) => `${e.name} ${e.status}`).sort()).toEqual(['identify accepted', ...Array(5).fill('search accepted')]);
    const stored = await h.waitForEvents(user, 6);
    expect(stored.map((e) => e.property).sort()).toEqual(['a1', 'a2', 'b1', 'b2', 'b3', 'login']);
    expect(stored.every((e) => e.warnings.length === 0)).toBe(true);
    expect(await call(p, 'status')).toMatchObject({ uploads: 'idle', refused: 0, dropped: 0 });
    await ctx.close();
  });
});
