import { memoryStore } from '../browser/stores';
import { apiBase, isBot } from './options';
import { batchBody, utf8Bytes } from './queue';
import type { AsyncStore } from './ports';
import { envelopes, fakeDeps, memoryShared, settleAll, T0, testClient } from './testing/fakes';

/** Issue 36's defects in the library's pure logic (the browser's side is in dev/src/web-sdk). */
describe('issue 36', () => {
  it('apiUrl: a bare base URL (what npm start prints) gets /v1; an API base is kept', () => {
    expect(apiBase('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080/v1');
    expect(apiBase('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080/v1');
    expect(apiBase('https://x.example/events')).toBe('https://x.example/events/v1');
    expect(apiBase('https://x.example/v1/')).toBe('https://x.example/v1');
    expect(apiBase('https://x.example/v2')).toBe('https://x.example/v2');
  });

  it('2: batches are bounded in UTF-8 bytes: 100 Devanagari searches never make a body over the 64 KB keepalive budget', async () => {
    expect(utf8Bytes('aé€😀')).toBe(Buffer.byteLength('aé€😀'));
    const t = testClient();
    const query = 'पैरासिटामोल की गोली '.repeat(20);
    for (let i = 0; i < 100; i++) await t.client.record('search', { query: `${query}${i}`, module: 'e_commerce', results_list: [] });
    await t.client.flush();
    expect(t.sent.length).toBeGreaterThan(1);
    for (const s of t.sent) expect(Buffer.byteLength(s.body)).toBeLessThanOrEqual(64 * 1024);
    expect(t.sent.flatMap((s) => envelopes(s.body).flatMap((e) => e.data))).toHaveLength(100);
  });

  it('1: what is logged while leaving is sent in the same task (keepalive), and kept until answered', async () => {
    const shared = memoryShared();
    const t = testClient({}, fakeDeps(shared));
    t.answer({ status: 0 });
    t.client.leave(() => {
      void t.client.record('page', { path: '/landing', title: 'Landing', duration: 1, render_time: 40 });
      void t.client.record('app', { action: 'close', start_time: 0 });
    });
    // Synchronously: no await between leave() and the request.
    expect(t.sent.map((s) => [s.url, s.unload])).toEqual([['https://api.example.com/v1/ingest/log', true]]);
    expect(envelopes(t.sent[0]!.body)[0]!.data.map((d) => d.name)).toEqual(['page', 'app']);
    await settleAll();
    // No answer (the tab closed): the next visit sends the same bytes again, which the event ids absorb.
    const next = testClient({}, fakeDeps(shared, memoryStore(), t.now + 60_000));
    await next.client.flush();
    expect(next.sent.map((s) => s.body.replace(/"sent_at":"[^"]*",/, ''))).toEqual([t.sent[0]!.body.replace(/"sent_at":"[^"]*",/, '')]);
    await next.client.flush();
    expect(next.sent).toHaveLength(1);
  });

  it('1: a leave batch the platform accepted is not sent again', async () => {
    const shared = memoryShared();
    const t = testClient({}, fakeDeps(shared));
    t.client.leave(() => void t.client.record('app', { action: 'background', start_time: 0 }));
    await settleAll();
    const next = testClient({}, fakeDeps(shared));
    await next.client.flush();
    expect(next.sent).toEqual([]);
  });

  it('2: an unload send that got no answer (a refused keepalive) does not put the library into backoff', async () => {
    const t = testClient();
    await t.client.record('app', { action: 'open', start_time: 1 });
    t.answer({ status: 0 });
    await t.client.flush(true);
    expect(t.client.uploader.state).toBe('idle');
    await t.client.flush();
    expect(t.sent.map((s) => s.unload)).toEqual([true, false]);
  });

  it('4: the consent init option is not the user’s choice: the next visit’s option applies', async () => {
    const shared = memoryShared();
    const store = memoryStore();
    expect(testClient({ consent: 'granted' }, fakeDeps(shared, store)).client.consent).toBe('granted');
    const v2 = testClient({ consent: 'denied' }, fakeDeps(shared, store));
    expect(v2.client.consent).toBe('denied');
    await v2.client.record('app', { action: 'open', start_time: 1 });
    await v2.client.flush();
    expect(v2.sent).toEqual([]);
    testClient({ consent: 'pending' }, fakeDeps(shared, store));
    expect(testClient({ consent: 'granted' }, fakeDeps(shared, store)).client.consent).toBe('granted');
    // A choice (setConsent) is remembered and wins over the option.
    await testClient({}, fakeDeps(shared, store)).client.setConsent('denied');
    expect(testClient({ consent: 'granted' }, fakeDeps(shared, store)).client.consent).toBe('denied');
  });

  it('11: a consent that is none of the three, a user id or token that is no string, are refused: uploads go on', async () => {
    const t = testClient();
    await expect(t.client.setConsent('yes' as never)).rejects.toThrow(TypeError);
    await expect(t.client.identify('login', { id: 1 } as never)).rejects.toThrow(TypeError);
    await t.client.identify('login', 'u1', undefined, { token: 42 });
    expect([t.client.consent, t.client.user, t.client.token]).toEqual(['granted', 'u1', undefined]);
    await t.client.record('app', { action: 'open', start_time: 1 });
    await t.client.flush();
    expect(t.sent.flatMap((s) => envelopes(s.body).flatMap((e) => e.data.map((d) => d.name)))).toEqual(['identify', 'app']);
  });

  it('4: a grant in another tab stores the events this tab held while pending', async () => {
    const shared = memoryShared();
    const store = memoryStore();
    const tab1 = testClient({ consent: 'pending' }, fakeDeps(shared, store));
    await tab1.client.record('app', { action: 'open', start_time: 1 });
    await testClient({ consent: 'pending' }, fakeDeps(shared, store)).client.setConsent('granted');
    // The browser tells tab 1 with a storage event for the consent key (auto.ts).
    await tab1.client.consentChanged();
    expect(envelopes(tab1.sent[0]!.body)[0]!.data.map((d) => d.property)).toEqual(['open']);
  });

  it('4: optOut forgets the user, the device id, the session and the kept actions, not only the queue', async () => {
    const shared = memoryShared();
    const store = memoryStore();
    const t = testClient({}, fakeDeps(shared, store));
    t.client.setUser('alice');
    await t.client.record('app', { action: 'open', start_time: 1 });
    await store.write([['a:x', { a: { user_id: 'alice' } }]], []);
    await t.client.setConsent('denied');
    expect(await store.list('')).toEqual([]);
    expect([...shared.map.keys()]).toEqual(['evp:shop.example.com:c']);
  });

  const pull = (type: string, render_method: string, n: number) => ({
    payload: {
      type,
      render_method,
      delivery_mode: 'one-off',
      content: { title: 't', body: 'b' },
      attr: {},
      internal: { ref: `1:${n}`, ref_time: `2026-11-27T02:00:00Z#1:${n}`, expired_at: '2099-01-01T00:00:00Z' },
    },
  });

  it('6: kept one-off actions answer the query’s filter: custom never returns in-app messages', async () => {
    const t = testClient();
    t.client.setUser('alice');
    t.answer({ status: 200, body: { data: [pull('message', 'in_app_message', 1), pull('custom', 'generic_message', 2)] } });
    await (await t.client.actions()).fetchActions({ type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off' });
    t.answer({ status: 200, body: { data: [] } });
    const custom = await (await t.client.actions()).fetchActions({ type: 'UIComponent', render_method: 'InAppComponent', delivery_mode: 'OneOff' });
    expect(custom.map((a) => a.ref)).toEqual(['1:2']);
  });

  it('6: respond() logs nudge_response and the one-off action is handled (not returned again)', async () => {
    const t = testClient();
    t.client.setUser('alice');
    t.answer({ status: 200, body: { data: [pull('custom', 'generic_message', 3)] } });
    const q = { type: 'custom', render_method: 'generic_message', delivery_mode: 'one-off' } as const;
    const [a] = await (await t.client.actions()).fetchActions(q);
    await (await t.client.actions()).respond(a!, 'open');
    t.answer({ status: 200, body: { data: [] } });
    expect(await (await t.client.actions()).fetchActions(q)).toEqual([]);
    await t.client.flush();
    const sent = t.sent.filter((s) => s.url.endsWith('/ingest/log')).flatMap((s) => envelopes(s.body).flatMap((e) => e.data));
    expect(sent.map((d) => [d.name, d.ctx])).toEqual([['nudge_response', { ref: '1:3', time: '2026-11-27T02:00:00Z#1:3', response: 'open' }]]);
  });
});

describe('batch bodies', () => {
  it('are the frozen envelope with sent_at first', () => {
    expect(batchBody({ p: 'log', parts: ['{"id":"u"}'], n: 1 }, 'T')).toBe('{"sent_at":"T","id":"u"}');
  });
});

describe('issue 36: clocks and tabs', () => {
  it('8: a device clock jumped 8 days forward drops nothing from the queue (age is measured between the queued events)', async () => {
    const t = testClient();
    t.answer({ status: 0 });
    await t.client.record('app', { action: 'open', start_time: 1 });
    await t.client.flush();
    await t.advance(8 * 24 * 3600_000);
    await t.client.uploader.retryNow();
    expect(t.client.status().dropped).toBe(0);
    expect(envelopes(t.sent[1]!.body)[0]!.data.map((d) => d.property)).toEqual(['open']);
  });

  it('8: a backoff stored by another tab cannot be stretched by a clock set back', async () => {
    const shared = memoryShared();
    const t = testClient({}, fakeDeps(shared));
    await t.client.record('app', { action: 'open', start_time: 1 });
    // Another tab backed off for 5 s, then the device clock went back a day: that is no 24 h wait.
    shared.set('evp:shop.example.com:bo', [t.now + 24 * 3600_000 + 5_000, 5_000]);
    await t.client.flush();
    expect(t.sent).toHaveLength(1);
  });

  it('9: draining a long queue reads each batch’s 100 events, not the whole store per batch (linear, not quadratic)', async () => {
    const inner = memoryStore();
    const reads: [string, number | undefined][] = [];
    const store: AsyncStore = { list: (p, n) => (reads.push([p, n]), inner.list(p, n)), write: (p, d) => inner.write(p, d) };
    const t = testClient({}, fakeDeps(memoryShared(), store));
    for (let i = 0; i < 1_000; i++) await t.client.queue.add({ at: T0 + i, n: 10, p: 'log', u: 'u', s: T0, z: 0, e: { name: 'app', i } });
    reads.length = 0;
    await t.client.flush();
    expect(t.sent).toHaveLength(10);
    // One full read for the queue bounds, then one read of at most 100 events per batch.
    const events = reads.filter(([p]) => p === 'e:');
    expect(events.filter(([, n]) => n === undefined)).toHaveLength(1);
    expect(events.filter(([, n]) => n === 100)).toHaveLength(11);
  });

  it('9: the app’s flush() waits for the upload lock another tab holds, then sends', async () => {
    const f = fakeDeps();
    const waits: (boolean | undefined)[] = [];
    f.deps.exclusive = (_name, fn, wait) => {
      waits.push(wait);
      return wait ? fn() : Promise.resolve();
    };
    const t = testClient({}, f);
    await t.client.record('app', { action: 'open', start_time: 1 });
    await t.client.flush();
    expect(t.sent).toEqual([]);
    await t.client.flush(false, true);
    expect(t.sent).toHaveLength(1);
    expect(waits).toEqual([undefined, true].map((w) => w ?? false));
  });
});

describe('what web teams expect next: bot filtering', () => {
  it('isBot: an automated browser, a headless one, crawlers’ user agents; not people’s browsers nor a CUBOT phone', () => {
    const person = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
    const uas = {
      person,
      iphone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
      cubot: 'Mozilla/5.0 (Linux; Android 9; CUBOT X19) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/80.0.3987.99 Mobile Safari/537.36',
      headless: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36',
      googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      bingbot: 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
      baidu: 'Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)',
      slurp: 'Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)',
      lighthouse:
        'Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Mobile Safari/537.36 Chrome-Lighthouse',
    };
    expect(Object.fromEntries(Object.entries(uas).map(([k, ua]) => [k, isBot(ua, false)]))).toEqual({
      person: false,
      iphone: false,
      cubot: false,
      headless: true,
      googlebot: true,
      bingbot: true,
      baidu: true,
      slurp: true,
      lighthouse: true,
    });
    expect(isBot(person, true)).toBe(true);
  });

  it('a bot’s page records nothing (events and catalog records) and counts it: status() says bot and filtered', async () => {
    const t = testClient({ storage: 'memory' });
    t.client.cfg.bot = true;
    await t.client.record('search', { query: 'crawled', module: 'e_commerce', results_list: [] });
    await t.client.identify('login', 'u-bot', { name: 'Bot' });
    t.client.leave(() => void t.client.record('app', { action: 'close', start_time: 0 }));
    await t.client.flush();
    expect(t.sent).toEqual([]);
    expect(await t.client.queue.batches()).toEqual([]);
    expect(t.client.status()).toMatchObject({ bot: true, filtered: 4, dropped: 0 });
  });
});

describe('what web teams expect next: beforeSend, register/unregister', () => {
  const sentEvents = (t: { sent: { url: string; body: string }[] }) =>
    t.sent.filter((s) => s.url.endsWith('/ingest/log')).flatMap((s) => envelopes(s.body).flatMap((e) => e.data));

  it('beforeSend changes an event, drops one (null, counted), and a hook that throws keeps it as it was', async () => {
    const t = testClient({
      beforeSend: (e) => {
        if (e.property === 'drop me') return null;
        if (e.property === 'throw') throw new Error('bug in the hook');
        return { ...e, ctx: { ...e.ctx, query: String(e.ctx.query).toUpperCase() } };
      },
    });
    for (const query of ['kept', 'drop me', 'throw']) await t.client.record('search', { query, module: 'e_commerce', results_list: [] });
    await t.client.flush();
    expect(sentEvents(t).map((d) => (d.ctx as { query: string }).query)).toEqual(['KEPT', 'throw']);
    expect(t.client.status().filtered).toBe(1);
    expect(t.warnings).toEqual(['beforeSend threw: event kept']);
  });

  it('register(): global properties in every later event’s meta, merged into an object meta; unregister removes one', async () => {
    const t = testClient();
    Object.assign(t.client.globals, { plan: 'pro', ab: 'b' });
    await t.client.record('app', { action: 'open', start_time: 1 });
    await t.client.record('custom', { name: 'x' }, { n: 1, plan: 'free' });
    await t.client.record('custom', { name: 'y' }, 'text meta');
    delete t.client.globals.ab;
    await t.client.record('app', { action: 'background', start_time: 0 });
    await t.client.flush();
    expect(sentEvents(t).map((d) => d.meta)).toEqual([{ plan: 'pro', ab: 'b' }, { plan: 'free', ab: 'b', n: 1 }, 'text meta', { plan: 'pro' }]);
  });
});
