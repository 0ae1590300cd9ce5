import { envelopes, settleAll, testClient } from './testing/fakes';

/** Issue 39, the web library's side: user tokens sent, renewed when refused, nothing lost meanwhile. */
const expired = { status: 401, body: { error: { code: 'user_token_expired', message: 'expired' } } };
const q = { type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off' } as const;
const search = (query: string) => ({ query, module: 'e_commerce', results_list: [] });
const names = (bodies: string[]) => bodies.flatMap((b) => envelopes(b).flatMap((e) => e.data.map((d) => (d.ctx as { query?: string }).query ?? d.name)));

describe('user tokens (web library)', () => {
  it('the anonymous visitor is anon:… (needs no token); a device id stored without the prefix gets it', () => {
    const t = testClient();
    expect(t.client.user).toMatch(/^anon:[a-z0-9]+$/);
    t.f.deps.shared.set('evp:shop.example.com:d', 'oldid123');
    expect(testClient({}, t.f).client.user).toBe('anon:oldid123');
  });

  it('init({userToken}) and identify(…, {token}) send the token with uploads and pulls; login without one, and logout, drop the last', async () => {
    const t = testClient({ userToken: 'T-init' });
    await t.client.record('search', search('a'));
    await t.client.flush();
    expect(t.sent.map((s) => s.token)).toEqual(['T-init']);
    await t.client.identify('login', 'alice', undefined, { token: 'T-alice' });
    await t.client.flush();
    t.answer({ status: 200, body: { data: [] } });
    await (await t.client.actions()).fetchActions(q);
    expect(t.sent.slice(1).map((s) => [s.url.replace(/.*\/v1/, ''), s.token])).toEqual([
      ['/ingest/log', 'T-alice'],
      ['/action/sdk/pull', 'T-alice'],
    ]);
    // The identify event itself travels with alice's token and not as a field of the event.
    expect(envelopes(t.sent[1]!.body)[0]!.data[0]!.ctx).toEqual({ action: 'login' });
    await t.client.identify('login', 'bob');
    expect(t.client.token).toBeUndefined();
    await t.client.identify('login', 'carol', undefined, { token: 'T-carol' });
    await t.client.identify('logout', 'carol');
    expect(t.client.token).toBeUndefined();
  });

  it('401 user_token_expired on an upload: onUserTokenExpired renews once and the same batch goes again; every event stored once', async () => {
    const t = testClient({ userToken: 'T1' });
    t.client.setUser('alice');
    let renewals = 0;
    t.hooks.renew = async () => `T${2 + renewals++}`;
    for (const x of ['a', 'b', 'c']) await t.client.record('search', search(x));
    t.answer(expired);
    await t.client.flush();
    expect(renewals).toBe(1);
    expect(t.sent.map((s) => s.token)).toEqual(['T1', 'T2']);
    // The refused upload stored nothing (docs/keys.md): the second carries the same events, and the queue is empty after its 2xx.
    expect(t.sent[0]!.body).toBe(t.sent[1]!.body);
    expect(names([t.sent[1]!.body])).toEqual(['a', 'b', 'c']);
    expect(t.client.uploader.state).toBe('idle');
    await t.client.flush();
    expect(t.sent).toHaveLength(2);
  });

  it('a signed-in user with no token: the app is asked for one before the upload; concurrent calls share one renewal', async () => {
    const t = testClient();
    t.client.setUser('alice');
    let renewals = 0;
    let release!: (t: string) => void;
    t.hooks.renew = () => (renewals++, new Promise<string>((r) => (release = r)));
    await t.client.record('search', search('a'));
    const flushing = t.client.flush();
    t.answer({ status: 200, body: { data: [] } });
    const pulling = t.client.actions().then((a) => a.fetchActions(q));
    await settleAll();
    expect(t.sent).toHaveLength(0);
    release('T-alice');
    await Promise.all([flushing, pulling]);
    expect(renewals).toBe(1);
    expect(t.sent.map((s) => s.token)).toEqual(['T-alice', 'T-alice']);
  });

  it('a pull refused (user_token_required) is renewed and sent again; without a renewal the upload waits (backoff), not stopped, and setUserToken sends it', async () => {
    const t = testClient({ userToken: 'old' });
    t.client.setUser('alice');
    t.hooks.renew = async () => 'fresh';
    t.answer({ status: 401, body: { error: { code: 'user_token_required' } } }, { status: 200, body: { data: [] } });
    await (await t.client.actions()).fetchActions(q);
    expect(t.sent.map((s) => s.token)).toEqual(['old', 'fresh']);

    const u = testClient({ userToken: 'old' });
    u.client.setUser('alice');
    await u.client.record('search', search('kept'));
    u.answer(expired);
    await u.client.flush();
    expect(u.client.uploader.state).toBe('backoff');
    u.client.token = 'new';
    await u.client.uploader.retryNow();
    expect(u.sent.map((s) => s.token)).toEqual(['old', 'new']);
    expect(names([u.sent[1]!.body])).toEqual(['kept']);
    expect(u.client.uploader.state).toBe('idle');
  });

  it('what leaves while the page closes carries the token too (keepalive header; user_token on a beacon)', async () => {
    const t = testClient({ userToken: 'T-leave' });
    t.client.leave(() => void t.client.record('app', { action: 'close', start_time: 0 }));
    expect(t.sent.map((s) => [s.unload, s.token])).toEqual([[true, 'T-leave']]);
    await settleAll();
  });
});
