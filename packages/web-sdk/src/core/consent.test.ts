import { memoryStore } from '../browser/stores';
import { envelopes, fakeDeps, memoryShared, testClient } from './testing/fakes';

describe('consent', () => {
  it('pending: records in memory only, uploads nothing; granted: stores and uploads what was held', async () => {
    const store = memoryStore();
    const t = testClient({ consent: 'pending' }, fakeDeps(memoryShared(), store));
    await t.client.record('app', { action: 'open', start_time: 5 });
    await t.client.catalog('drug', { id: 'd1' });
    await t.client.flush();
    expect(t.sent).toHaveLength(0);
    expect(await store.list('')).toEqual([]);
    await t.client.setConsent('granted');
    expect(t.sent.map((s) => s.url.replace('https://api.example.com/v1', ''))).toEqual(['/ingest/log', '/ingest/catalog/drug']);
    expect(envelopes(t.sent[0]!.body)[0]!.data.map((d) => d.property)).toEqual(['open']);
  });

  it('denied: deletes what is queued and records nothing more, also across a reload', async () => {
    const shared = memoryShared();
    const store = memoryStore();
    const t = testClient({}, fakeDeps(shared, store));
    t.answer({ status: 0 });
    await t.client.record('app', { action: 'open', start_time: 5 });
    await t.client.flush();
    await t.client.record('app', { action: 'background', start_time: 0 });
    await t.client.setConsent('denied');
    expect(await store.list('')).toEqual([]);
    await t.client.record('app', { action: 'resume', start_time: 0 });
    expect(await store.list('')).toEqual([]);
    // The next page load (no consent option) remembers the choice.
    const reload = testClient({}, fakeDeps(shared, store));
    expect(reload.client.consent).toBe('denied');
    await reload.client.record('app', { action: 'open', start_time: 5 });
    await reload.client.flush();
    expect(await store.list('')).toEqual([]);
    expect(reload.sent).toHaveLength(0);
  });
});
