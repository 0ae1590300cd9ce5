import request from 'supertest';
import { KeyRing, UserTokenOutcomeTracker, createLogger, type KeysFile, type UserTokenPolicy } from '@evp/core';
import { ManualClock, NEVER_EXPIRES } from '@evp/actions';
import { InMemoryActionStore } from '@evp/embedded';
import { signUserToken } from '@evp/testkit';
import { createActionStoreApp } from './app';

const API = 'api-key-app1-0123456789';
const SDK = 'sdk-key-app1-0123456789';
const SECRET = 'hs256-secret-of-the-app-1-server-0123';
const NOW = Date.UTC(2030, 0, 1, 12, 0, 0);

const file = (policy: UserTokenPolicy): KeysFile => ({
  keys: [
    { id: 'k-api', app_id: 'app-1', role: 'api', key: API },
    { id: 'k-sdk', app_id: 'app-1', role: 'sdk', key: SDK },
    { id: 'tok-1', app_id: 'app-1', role: 'user_token', alg: 'HS256', key: SECRET },
  ],
  apps: { 'app-1': { user_tokens: policy } },
});

const token = (sub: string, o: { exp?: number; kid?: string } = {}) =>
  signUserToken({ sub, aud: 'app-1', iat: NOW / 1000, exp: o.exp ?? NOW / 1000 + 600 }, { kid: o.kid ?? 'tok-1', secret: SECRET });

function setup(policy: UserTokenPolicy, limit = { burst: 1000, perSecond: 1 }, tokenOutcomes?: UserTokenOutcomeTracker) {
  const keys = new KeyRing(file(policy), tokenOutcomes ? { tokenOutcomes } : {});
  const store = new InMemoryActionStore({ clock: new ManualClock(NOW) });
  const { app, metrics } = createActionStoreApp({ store, keys, logger: createLogger('test', 'silent'), now: () => NOW, userPullLimit: limit });
  const create = (userId: string) =>
    request(app)
      .post('/v1/actions')
      .set('Authorization', `Bearer ${API}`)
      .send([
        {
          user_id: userId,
          type: 'message',
          render_method: 'push_notification',
          delivery_mode: 'one-off',
          content: { title: 'T', body: 'B' },
          expired_at: NEVER_EXPIRES,
        },
      ]);
  const pull = (userId: string, tok?: string, via: 'header' | 'query' = 'header') => {
    const r = request(app).post(`/v1/action/sdk/pull${tok !== undefined && via === 'query' ? `?user_token=${tok}` : ''}`);
    if (tok !== undefined && via === 'header') r.set('X-EVP-User-Token', tok);
    return r.set('Authorization', `Bearer ${SDK}`).send({ user_id: userId, type: 'message', render_method: 'push_notification', delivery_mode: 'one-off' });
  };
  const fetchOlder = (userId: string, tok?: string) => {
    const r = request(app).get(`/v1/nudge/sdk/${userId}`).set('Authorization', `Bearer ${SDK}`);
    return tok === undefined ? r : r.set('X-EVP-User-Token', tok);
  };
  const counts = async () =>
    Object.fromEntries(
      (await metrics.registry.getSingleMetric('user_tokens_total')!.get()).values.map((v) => [`${v.labels.app}/${v.labels.outcome}`, v.value]),
    );
  return { keys, create, pull, fetchOlder, counts };
}

describe('user tokens on the single-user pulls', () => {
  it('enforce: the user’s own token pulls (header or ?user_token=); none, a bad, an expired or another user’s token is refused with its code', async () => {
    const t = setup('enforce');
    await t.create('u1');
    const refused = async (res: request.Response, status: number, code: string) => expect([res.status, res.body.error?.code]).toEqual([status, code]);
    await refused(await t.pull('u1'), 401, 'user_token_required');
    await refused(await t.pull('u1', 'garbage'), 401, 'user_token_invalid');
    await refused(await t.pull('u1', await token('u1', { kid: 'unknown' })), 401, 'user_token_invalid');
    await refused(await t.pull('u1', await token('u1', { exp: NOW / 1000 - 60 })), 401, 'user_token_expired');
    await refused(await t.pull('u1', await token('u2')), 403, 'user_token_mismatch');
    // Nothing was consumed by the refused pulls: the one-off action is still there for its user.
    const ok = await t.pull('u1', await token('u1'), 'query');
    expect([ok.status, ok.body.data.length]).toEqual([200, 1]);
    expect(await t.counts()).toEqual({ 'app-1/required': 1, 'app-1/invalid': 2, 'app-1/expired': 1, 'app-1/mismatch': 1, 'app-1/valid': 1 });
    // The same outcomes reach the ring's last-hour counts (what GET /v1/keys/user-tokens serves).
    expect(await t.keys.tokenOutcomes.lastHour('app-1')).toEqual({ valid: 1, anonymous: 0, required: 1, invalid: 2, expired: 1, mismatch: 1 });
  });

  it('enforce: the older clients’ fetch needs the token too; an anonymous visitor (anon:) needs none', async () => {
    const t = setup('enforce');
    expect((await t.fetchOlder('u1')).body.error.code).toBe('user_token_required');
    expect((await t.fetchOlder('u1', await token('u2'))).body.error.code).toBe('user_token_mismatch');
    expect((await t.fetchOlder('u1', await token('u1'))).status).toBe(200);
    expect((await t.pull('anon:4f2a')).status).toBe(200);
  });

  it('report: every pull is answered as under off, and what enforce would refuse is counted', async () => {
    const t = setup('report');
    await t.create('u1');
    const res = await t.pull('u1', await token('u2'));
    expect([res.status, res.body.data.length]).toEqual([200, 1]);
    expect((await t.pull('u1')).status).toBe(200);
    expect(await t.counts()).toEqual({ 'app-1/mismatch': 1, 'app-1/required': 1 });
  });

  it('report: a count store that never answers neither slows nor fails a pull; its failed flush is reported', async () => {
    const errors: unknown[] = [];
    const hanging = { add: () => new Promise<void>(() => {}), lastHour: () => new Promise<never>(() => {}), close: async () => {} };
    const failing = { ...hanging, add: async () => Promise.reject(new Error('redis down')) };
    for (const store of [hanging, failing]) {
      const tracker = new UserTokenOutcomeTracker({ store, flushMs: 1, onFlushError: (e) => errors.push(e) });
      const t = setup('report', undefined, tracker);
      await t.create('u1');
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        const res = await t.pull('u1');
        expect([res.status, Date.now() - started < 1_000]).toEqual([200, true]);
        // Let a flush start between calls: the next call must not wait for it.
        await new Promise((r) => setImmediate(r));
      }
      // The hanging store's flush would never end; the failing one's ends with its error reported.
      if (store === failing) await tracker.flush();
    }
    expect(errors.length).toBeGreaterThan(0);
    expect(new Set(errors.map((e) => (e as Error).message))).toEqual(new Set(['redis down']));
  });

  it('off (the default): no token is read or counted; a policy change in the file applies at once', async () => {
    const t = setup('off');
    expect((await t.pull('u1', 'garbage')).status).toBe(200);
    expect(await t.counts()).toEqual({});
    t.keys.replace(file('enforce'));
    expect((await t.pull('u1')).body.error.code).toBe('user_token_required');
  });

  it('limits each user’s pulls with a bucket: 429 rate_limited and Retry-After, other users unaffected', async () => {
    const t = setup('off', { burst: 2, perSecond: 0.5 });
    expect((await t.pull('u1')).status).toBe(200);
    expect((await t.pull('u1')).status).toBe(200);
    const limited = await t.pull('u1');
    expect([limited.status, limited.body.error.code, limited.headers['retry-after']]).toEqual([429, 'rate_limited', '2']);
    expect((await t.fetchOlder('u1')).status).toBe(429);
    expect((await t.pull('u2')).status).toBe(200);
  });
});
