import { memoryStore } from '../browser/stores';
import { splitBatch } from '../parts/split';
import { Client, type Load, type Parts } from './client';
import { settle } from './options';
import { envelopes, fakeDeps, memoryShared, settleAll, T0, testClient } from './testing/fakes';

const withoutSentAt = (body: string) => body.replace(/"sent_at":"[^"]*",/g, '');

describe('upload', () => {
  it('builds current-form envelopes: every R field, sdk web/<version>, os web, spec time form, s_id ending at the last event, sent_at', async () => {
    const t = testClient();
    await t.client.record('page', { path: '/cart', title: 'Cart', duration: 2.5, render_time: 40 });
    await t.advance(1_500);
    await t.client.record('rate', { rate_value: 4, type: 'app', subject_id: 'app' });
    await t.client.flush();
    expect(t.sent).toHaveLength(1);
    expect(t.sent[0]!.url).toBe('https://api.example.com/v1/ingest/log');
    const [env, ...more] = envelopes(t.sent[0]!.body);
    expect(more).toEqual([]);
    const user = t.client.user;
    expect(env).toEqual({
      sent_at: '2026-11-27T03:00:01.500Z',
      id: user,
      tz: '+01:00',
      internal: { s_id: `${user}_${T0}_${T0 + 1500}`, sdk: 'web/0.1.0', a_id: 'shop.example.com', a_ver: '2.1.0 (21)', d_id: user, os: 'web' },
      data: [
        { time: '2026-11-27 04:00:00.000', __ol: true, name: 'page', property: '/cart', ctx: { path: '/cart', title: 'Cart', duration: 2.5, render_time: 40 } },
        { time: '2026-11-27 04:00:01.500', __ol: true, name: 'rate', property: 'app', ctx: { rate_value: 4, type: 'app', subject_id: 'app' } },
      ],
    });
    // Delivered batches are gone: a second flush sends nothing.
    await t.client.flush();
    expect(t.sent).toHaveLength(1);
  });

  it('ends s_id with 0 for immediate uploads, one request per event', async () => {
    const t = testClient({ upload: 'immediate' });
    await t.client.record('app', { action: 'open', start_time: 120 });
    await t.client.record('app', { action: 'background', start_time: 0 });
    expect(t.sent.map((s) => envelopes(s.body)[0]!.internal.s_id)).toEqual([`${t.client.user}_${T0}_0`, `${t.client.user}_${T0}_0`]);
  });

  it('re-sends a frozen batch byte-identical but for sent_at, after the Retry-After of a 503', async () => {
    const t = testClient();
    await t.client.record('app', { action: 'open', start_time: 10 });
    t.answer({ status: 503, retryAfter: 7 });
    await t.client.flush();
    expect(t.client.uploader.state).toBe('backoff');
    // Recorded after the freeze: not in the frozen batch, which goes first.
    await t.client.record('app', { action: 'background', start_time: 0 });
    await t.advance(6_999);
    expect(t.sent).toHaveLength(1);
    // Another flush inside the window sends nothing (the shared backoff holds for every tab).
    await t.client.flush();
    expect(t.sent).toHaveLength(1);
    await t.advance(1);
    await settleAll();
    expect(t.sent).toHaveLength(3);
    expect(withoutSentAt(t.sent[1]!.body)).toBe(withoutSentAt(t.sent[0]!.body));
    expect(envelopes(t.sent[0]!.body)[0]!.sent_at).toBe('2026-11-27T03:00:00.000Z');
    expect(envelopes(t.sent[1]!.body)[0]!.sent_at).toBe('2026-11-27T03:00:07.000Z');
    expect(envelopes(t.sent[2]!.body)[0]!.data.map((d) => d.property)).toEqual(['background']);
  });

  it('backs off exponentially with jitter when there is no Retry-After (network errors, 5xx)', async () => {
    const t = testClient();
    await t.client.record('app', { action: 'open', start_time: 10 });
    t.answer({ status: 0 }, { status: 502 }, { status: 0 });
    await t.client.flush();
    // random() = 0.5: wait = base/2 + base/2 * 0.5 = 0.75 × (1 s, 2 s, 4 s).
    await t.advance(749);
    expect(t.sent).toHaveLength(1);
    await t.advance(1);
    expect(t.sent).toHaveLength(2);
    await t.advance(1_499);
    expect(t.sent).toHaveLength(2);
    await t.advance(1);
    expect(t.sent).toHaveLength(3);
    await t.advance(3_000);
    expect(t.sent).toHaveLength(4);
    expect(t.client.uploader.state).toBe('idle');
    expect(new Set(t.sent.map((s) => withoutSentAt(s.body))).size).toBe(1);
  });

  it('splits a batch the platform answers 413, until the halves fit, keeping every event once', async () => {
    const t = testClient();
    for (let i = 0; i < 5; i++) await t.client.record('rate', { rate_value: i, type: 'app', subject_id: `s${i}` });
    // The platform takes at most 2 events per request.
    const limit = (_url: string, body: string) =>
      envelopes(body).reduce((a, e) => a + e.data.length, 0) > 2 ? { status: 413 } : { status: 200, body: { request_id: 'x' } };
    t.answer(...Array.from({ length: 10 }, () => limit));
    await t.client.flush();
    const sizes = t.sent.map((s) => envelopes(s.body)[0]!.data.length);
    expect(sizes).toEqual([5, 3, 2, 1, 2]);
    const delivered = t.sent
      .filter((_, i) => sizes[i]! <= 2)
      .flatMap((s) => envelopes(s.body)[0]!.data.map((d) => (d.ctx as { subject_id: string }).subject_id));
    expect(delivered).toEqual(['s0', 's1', 's2', 's3', 's4']);
    // The halves keep the envelope's header bytes (same s_id: the platform's event ids match a retry).
    expect(new Set(t.sent.map((s) => envelopes(s.body)[0]!.internal.s_id)).size).toBe(1);
    expect(await t.client.queue.batches()).toEqual([]);
  });

  it('413 while the split part cannot load (offline now): the batch is kept and the uploads back off, then split once it loads', async () => {
    const f = fakeDeps();
    let loads = 0;
    const load = ((name: keyof Parts) =>
      name === 'split' && loads++ === 0 ? Promise.reject(new Error('could not load web-split.js')) : Promise.resolve(splitBatch)) as Load;
    const client = new Client(settle({ sdkKey: 'sdk_test', apiUrl: 'https://api.example.com/v1' }, 'localhost'), f.deps, load);
    for (let i = 0; i < 2; i++) await client.record('rate', { rate_value: i, type: 'app', subject_id: `s${i}` });
    f.answer({ status: 413 });
    await client.flush();
    expect(client.uploader.state).toBe('backoff');
    expect((await client.queue.batches()).map(([, b]) => b.n)).toEqual([2]);
    f.answer({ status: 413 });
    await f.advance(2_000);
    expect(f.sent.map((s) => envelopes(s.body)[0]!.data.length)).toEqual([2, 2, 1, 1]);
    expect([client.uploader.state, await client.queue.batches()]).toEqual(['idle', []]);
  });

  it('drops (and counts) a single event the platform answers 413', async () => {
    const t = testClient();
    await t.client.record('rate', { rate_value: 1, type: 'app', subject_id: 'big' });
    t.answer({ status: 413 });
    await t.client.flush();
    expect(t.client.status()).toMatchObject({ refused: 1, uploads: 'idle' });
    expect(t.warnings).toEqual(['413: an event too large, dropped']);
  });

  it.each([401, 403])('stops uploads on %i, warns, and keeps the events queued', async (status) => {
    const t = testClient();
    await t.client.record('app', { action: 'open', start_time: 1 });
    t.answer({ status });
    await t.client.flush();
    await t.client.record('app', { action: 'close', start_time: 0 });
    await t.client.flush();
    await t.advance(3_600_000);
    expect(t.sent).toHaveLength(1);
    expect(t.client.uploader.state).toBe('stopped');
    expect(t.warnings).toEqual([`${status}: SDK key refused, uploads stopped`]);
    expect((await t.client.queue.batches()).map(([, b]) => b.n)).toEqual([1]);
  });

  it('drops a batch refused for good (400) with a warning, and goes on with the next', async () => {
    const t = testClient();
    await t.client.record('app', { action: 'open', start_time: 1 });
    await t.client.catalog('drug', { id: 'd1', name: 'Paracetamol' });
    t.answer({ status: 400, body: { error: { code: 'invalid_envelope' } } });
    await t.client.flush();
    expect(t.sent.map((s) => s.url)).toEqual(['https://api.example.com/v1/ingest/log', 'https://api.example.com/v1/ingest/catalog/drug']);
    expect(t.sent[1]!.body).toBe('[{"id":"d1","name":"Paracetamol"}]');
    expect(t.client.status().refused).toBe(1);
  });

  it('keeps envelopes apart per user and session, in one request', async () => {
    const t = testClient();
    const anonymous = t.client.user;
    await t.client.record('app', { action: 'open', start_time: 1 });
    t.client.setUser('alice');
    await t.advance(10);
    await t.client.record('identify', { action: 'login' });
    await t.client.flush();
    const envs = envelopes(t.sent[0]!.body);
    expect(envs.map((e) => [e.id, e.internal.s_id, e.data.length])).toEqual([
      [anonymous, `${anonymous}_${T0}_${T0}`, 1],
      ['alice', `alice_${T0 + 10}_${T0 + 10}`, 1],
    ]);
  });
});

describe('queue bounds', () => {
  it('drops the oldest events over the count bound, and counts them', async () => {
    const t = testClient({ maxQueueEvents: 3 });
    for (let i = 0; i < 5; i++) await t.client.record('rate', { rate_value: 1, type: 'app', subject_id: `s${i}` });
    await t.client.flush();
    expect(envelopes(t.sent[0]!.body)[0]!.data.map((d) => (d.ctx as { subject_id: string }).subject_id)).toEqual(['s2', 's3', 's4']);
    expect(t.client.status().dropped).toBe(2);
    expect(t.warnings).toEqual(['queue full: dropped 2 oldest']);
  });

  it('drops events older than the age bound and the oldest over the byte bound', async () => {
    const store = memoryStore();
    // Each of these events is 131 characters of JSON (the old one 132): 400 bytes hold three of them.
    const t = testClient({ maxEventAgeMs: 60_000, maxQueueBytes: 400 }, fakeDeps(memoryShared(), store));
    await t.client.record('rate', { rate_value: 1, type: 'app', subject_id: 'old' });
    await t.advance(60_001);
    for (let i = 0; i < 4; i++) await t.client.record('rate', { rate_value: 1, type: 'app', subject_id: `s${i}` });
    expect((await store.list<{ n: number }>('e:')).map(([, q]) => q.n)).toEqual([132, 131, 131, 131, 131]);
    await t.client.flush();
    expect(envelopes(t.sent[0]!.body)[0]!.data.map((d) => (d.ctx as { subject_id: string }).subject_id)).toEqual(['s1', 's2', 's3']);
    // The old one by age, s0 by bytes.
    expect(t.client.status().dropped).toBe(2);
  });
});

describe('debug mode', () => {
  it('reads the verdict of each accepted upload with the SDK key, polling until it is complete', async () => {
    const t = testClient({ debug: true });
    await t.client.record('app', { action: 'open', start_time: 1 });
    t.answer({ status: 200, body: { accepted: 1, request_id: 'req-7' } });
    await t.client.flush();
    const verdict = { request_id: 'req-7', status: 'complete', events: [{ status: 'accepted', name: 'app', warnings: [] }] };
    t.answerGet({ status: 200, body: { request_id: 'req-7', status: 'pending', events: [] } }, { status: 200, body: verdict });
    await t.advance(2_000);
    expect(t.gets).toEqual(['https://api.example.com/v1/ingest/requests/req-7', 'https://api.example.com/v1/ingest/requests/req-7']);
    // Debug mode logs what the library does too (issue 36 item 7): the event recorded, then the verdict.
    expect(t.debugged.map(([m]) => m)).toEqual(['recorded app', 'verdict req-7']);
    expect(t.debugged[1]).toEqual(['verdict req-7', verdict]);
  });

  it('reads nothing when debug is off', async () => {
    const t = testClient();
    await t.client.record('app', { action: 'open', start_time: 1 });
    await t.client.flush();
    await t.advance(20_000);
    expect(t.gets).toEqual([]);
  });
});

describe('beacon', () => {
  it('keeps the batch and sets no backoff when the transport could only hand it to sendBeacon', async () => {
    const t = testClient();
    await t.client.record('app', { action: 'close', start_time: 0 });
    t.answer({ status: 0, beacon: true });
    await t.client.flush(true);
    expect(t.client.uploader.state).toBe('idle');
    expect((await t.client.queue.batches()).length).toBe(1);
    // The next visit re-sends the same bytes.
    await t.client.flush();
    expect(t.sent.map((s) => s.unload)).toEqual([true, false]);
    expect(t.sent[1]!.body.replace(/"sent_at":"[^"]*",/, '')).toBe(t.sent[0]!.body.replace(/"sent_at":"[^"]*",/, ''));
  });
});

describe('the back/forward cache', () => {
  it('the upload while the page goes away asks for no lock (one granted after the page froze evicts it); the others do', async () => {
    const f = fakeDeps();
    const locks: string[] = [];
    f.deps.exclusive = (name, fn) => (locks.push(name), fn());
    const t = testClient({}, f);
    await t.client.record('app', { action: 'close', start_time: 0 });
    await t.client.flush(true);
    expect([locks, t.sent.map((s) => s.unload)]).toEqual([[], [true]]);
    await t.client.record('app', { action: 'open', start_time: 0 });
    await t.client.flush();
    expect([locks, t.sent.map((s) => s.unload)]).toEqual([['evp:shop.example.com:upload'], [true, false]]);
  });
});

describe('bounds while not uploading', () => {
  it('applies the queue bounds also when uploads are stopped (401)', async () => {
    const t = testClient({ maxQueueEvents: 2 });
    await t.client.record('app', { action: 'open', start_time: 1 });
    t.answer({ status: 401 });
    await t.client.flush();
    for (let i = 0; i < 4; i++) await t.client.record('rate', { rate_value: 1, type: 'app', subject_id: `s${i}` });
    await t.client.flush();
    expect(t.sent).toHaveLength(1);
    expect(t.client.status().dropped).toBe(2);
  });

  it('holds at most maxQueueEvents while consent is pending, dropping the oldest (counted)', async () => {
    const t = testClient({ maxQueueEvents: 2, consent: 'pending' });
    for (let i = 0; i < 3; i++) await t.client.record('rate', { rate_value: 1, type: 'app', subject_id: `s${i}` });
    await t.client.setConsent('granted');
    expect(envelopes(t.sent[0]!.body)[0]!.data.map((d) => (d.ctx as { subject_id: string }).subject_id)).toEqual(['s1', 's2']);
    expect(t.client.status().dropped).toBe(1);
  });
});
