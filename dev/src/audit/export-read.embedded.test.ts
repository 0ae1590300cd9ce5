import { InfraError, idHash } from '@evp/core';
import { createAccessLog, createInMemoryAccessLogStorage } from '@evp/http';
import { uniqueName, waitFor } from '@evp/testkit';
import { createEmbeddedParts } from '../embedded-parts';
import type { RunningPipeline } from '../pipeline';
import { patientUpload, privacyKeys, startPrivacyPipeline } from '../testing/privacy-app';

// Issue 40's export download, on `npm start`'s composition: GET /v1/privacy/exports lists the app's
// exports without the person's id; a download is in the access log once, with the person as the
// keyed hash, before its data; with the log failing (its storage port refusing) the download is
// 503 access_log_unavailable and carries no row.
const { app: APP, sdk: SDK, api: API, otherApi: OTHER_API, apiKeyId } = privacyKeys('expr');
const HASH_KEY = 'export-read-embedded-test-key-0123456789';

describe('an export download and the access log', () => {
  const database = uniqueName('expr').replace(/-/g, '_');
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database });
  const storage = createInMemoryAccessLogStorage();
  const append = storage.tryAppend.bind(storage);
  let pipeline: RunningPipeline;
  const user = `u-export-${Date.now().toString(36)}`;

  beforeAll(async () => {
    pipeline = await startPrivacyPipeline(parts, 'expr', HASH_KEY, createAccessLog(storage));
  });
  afterAll(async () => {
    await pipeline.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
  });

  const call = async (key: string, method: string, route: string, body?: unknown) => {
    const res = await fetch(`${pipeline.baseUrl}${route}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, text: await res.text() };
  };
  const json = async (key: string, method: string, route: string, body?: unknown) => {
    const r = await call(key, method, route, body);
    return { status: r.status, body: JSON.parse(r.text) as Record<string, any> };
  };

  it('lists the export, records its download once before the data, and refuses it when the log fails', async () => {
    const upload = patientUpload(user, 3);
    const sent = await fetch(`${pipeline.baseUrl}/v1/ingest/log`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${SDK}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(upload),
    });
    expect(sent.status).toBe(200);
    await waitFor(
      async () => {
        const [row] = await parts.analytics.query<{ n: number }>('SELECT count() AS n FROM events WHERE app_id = {app:String} AND user_id = {u:String}', {
          app: APP,
          u: user,
        });
        return Number(row?.n) === 3 ? true : undefined;
      },
      { timeoutMs: 30_000, what: 'the three events stored' },
    );

    const created = await json(API, 'POST', '/v1/privacy/exports', { user_id: user });
    expect(created.status).toBe(202);
    const done = await waitFor(
      async () => {
        const r = await json(API, 'GET', `/v1/privacy/exports/${created.body.id}`);
        return r.body.state === 'completed' ? r.body : undefined;
      },
      { timeoutMs: 30_000, what: 'the export counted' },
    );

    const listed = await call(API, 'GET', '/v1/privacy/exports');
    expect(listed.status).toBe(200);
    expect(JSON.parse(listed.text)).toEqual({ data: [done] });
    expect(listed.text).not.toContain(user);
    expect((await json(OTHER_API, 'GET', '/v1/privacy/exports')).body).toEqual({ data: [] });

    const data = await call(API, 'GET', `/v1/privacy/exports/${created.body.id}/data`);
    expect(data.status).toBe(200);
    const lines = data.text.trimEnd().split('\n');
    expect(lines.length).toBe(done.rows);
    const person = idHash(HASH_KEY, APP, 'user', user);
    const reads = () => storage.entries.get(APP)?.filter((e) => e.route === 'GET /v1/privacy/exports/{id}/data') ?? [];
    expect(reads().map((e) => [e.key_id, e.role, e.app_id, e.person, e.rows])).toEqual([[apiKeyId, 'api', APP, person, done.rows]]);

    storage.tryAppend = async () => {
      throw new InfraError('redis', 'connection lost', { retriable: true });
    };
    const refused = await call(API, 'GET', `/v1/privacy/exports/${created.body.id}/data`);
    storage.tryAppend = append;
    expect([refused.status, JSON.parse(refused.text).error.code]).toEqual([503, 'access_log_unavailable']);
    expect(refused.text).not.toContain('clickhouse.');
    expect(reads().length).toBe(1);

    // The audit API: the role filter, and the chain's verdict.
    const route = encodeURIComponent('GET /v1/privacy/exports/{id}/data');
    const byApi = await json(API, 'GET', `/v1/audit/reads?role=api&route=${route}`);
    expect(byApi.body.data.map((e: { person: string }) => e.person)).toEqual([person]);
    expect((await json(API, 'GET', `/v1/audit/reads?role=analyst&route=${route}`)).body).toEqual({ data: [] });
    const all = storage.entries.get(APP) ?? [];
    const last = all[all.length - 1]!;
    expect((await json(API, 'GET', '/v1/audit/verify')).body).toEqual({ ok: true, entries: all.length, head: { seq: last.seq, hash: last.hash } });
    expect((await json(OTHER_API, 'GET', '/v1/audit/verify')).body).toEqual({ ok: true, entries: 0 });
  }, 90_000);
});
