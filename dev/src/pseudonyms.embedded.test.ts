import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyRing, createLogger, pseudonymise } from '@evp/core';
import { watchKeysFile, type KeysReloader } from '@evp/http';
import { chdbScratchPath, createChdbAnalystSql } from '@evp/embedded';
import { uniqueName, waitFor } from '@evp/testkit';
import { createEmbeddedParts } from './embedded-parts';
import { startPipeline, type RunningPipeline } from './pipeline';

/**
 * Pseudonymisation end to end on `npm start`'s composition (issue 41): the app's keys file says
 * "pseudonymise direct identifiers"; a patient id sent in the clear is stored as its HMAC, an analyst
 * query finds only the HMAC, and a segment on that patient (defined with the pseudonym,
 * docs/privacy.md "Segments") still matches. A rotation in the file (no restart) pseudonymises new
 * rows under the new version.
 */
const APP = 'pseudo-app';
const SDK = 'sdk_pseudo_0123456789abcdef';
const API = 'api_pseudo_0123456789abcdef';
const ANALYST = 'analyst_pseudo_0123456789ab';
// Golden values: packages/core/src/privacy/pseudonym.test.ts (computed with openssl).
const KEY_V1 = 'demo-app pseudonym key v1, 32 bytes!!';
const KEY_V2 = 'demo-app pseudonym key v2, 32 bytes!!';
const PAT_V1 = 'p1:JBzJmddArzd_3Jmbb6r8bw';
const PAT_V2 = 'p2:qbISYRNCd_-PmYAaNHc6iA';

const keysFile = (versions: { version: number; key: string }[]) => ({
  keys: [
    { id: 'p-sdk', app_id: APP, role: 'sdk', key: SDK },
    { id: 'p-api', app_id: APP, role: 'api', key: API },
    { id: 'p-analyst', app_id: APP, role: 'analyst', key: ANALYST },
  ],
  apps: { [APP]: { privacy: { classes: { direct_identifier: 'pseudonymise' } } } },
  pseudonym_keys: versions.map((v) => ({ app_id: APP, ...v })),
});

describe('pseudonyms on the embedded pipeline', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evp-pseudonyms-'));
  const path = join(dir, 'keys.json');
  const database = uniqueName('pseudo').replace(/-/g, '_');
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database });
  let ring: KeyRing;
  let reloader: KeysReloader;
  let pipeline: RunningPipeline;
  const user = `u-${Date.now().toString(36)}`;

  const eventTime = () => new Date().toISOString().replace('T', ' ').slice(0, 23);
  const sendPatient = async (patientId: string, userId = user) => {
    const res = await fetch(`${pipeline.baseUrl}/v1/ingest/log`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${SDK}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        id: userId,
        tz: '+00:00',
        internal: { s_id: `${userId}_1700000000000_0`, sdk: 'android/2.4.1', a_id: 'a', a_ver: '1.2.3 (45)', d_id: 'd-1', os: 'android' },
        data: [
          {
            time: eventTime(),
            name: 'patient',
            property: 'add',
            ctx: { __ol: true, patient_id: patientId, site_id: 's-1', action: 'add', category: 'facility', type: 'outpatient' },
          },
        ],
      }),
    });
    expect(res.status).toBe(200);
  };
  const sql = async (query: string) => {
    const res = await fetch(`${pipeline.baseUrl}/clickhouse/?default_format=JSONEachRow`, {
      method: 'POST',
      headers: { 'X-ClickHouse-Key': ANALYST },
      body: query,
    });
    expect(res.status).toBe(200);
    return (await res.text())
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  };
  const api = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${pipeline.baseUrl}${route}`, {
      method,
      headers: { Authorization: `Bearer ${API}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  beforeAll(async () => {
    writeFileSync(path, JSON.stringify(keysFile([{ version: 1, key: KEY_V1 }])));
    ring = KeyRing.fromFile(path);
    reloader = watchKeysFile({ path, ring, logger: createLogger('pseudo', 'silent'), intervalMs: 200 });
    pipeline = await startPipeline({
      parts,
      keys: ring,
      logger: createLogger('pseudo', 'silent'),
      sinkFlushMs: 50,
      analystSql: createChdbAnalystSql({ path: chdbScratchPath(), database }),
      analystDatabase: database,
      segments: { recomputeIntervalMs: 500 },
    });
  });
  afterAll(async () => {
    reloader.close();
    await pipeline.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores a patient id sent in the clear as its HMAC (key version 1 on the row); an analyst finds only the HMAC', async () => {
    await sendPatient('PAT-0042');
    const rows = await waitFor(
      async () => {
        const r = await sql(`SELECT props.patient_id.:String AS patient_id, pseudonym_key, user_id FROM events WHERE name = 'patient' AND user_id = '${user}'`);
        return r.length > 0 ? r : undefined;
      },
      { timeoutMs: 30_000, what: 'the patient event in ClickHouse' },
    );
    expect(rows).toEqual([{ patient_id: PAT_V1, pseudonym_key: 1, user_id: user }]);
    expect(await sql(`SELECT count() AS n FROM events WHERE position(toString(props), 'PAT-0042') > 0`)).toEqual([{ n: 0 }]);
    expect(await sql(`SELECT count() AS n FROM events WHERE props.patient_id.:String = '${PAT_V1}'`)).toEqual([{ n: 1 }]);
  });

  it('a segment on that patient, defined with the pseudonym, matches its user', async () => {
    const created = await api('POST', '/v1/segments', {
      name: 'patient PAT-0042',
      definition: { event: 'patient', where: [{ prop: 'patient_id', op: 'eq', value: pseudonymise(KEY_V1, 1, 'PAT-0042') }], count: { gte: 1 }, within: 'P1D' },
    });
    expect(created.status).toBe(201);
    const members = await waitFor(
      async () => {
        const r = await api('GET', `/v1/segments/${created.body.id}/members`);
        return r.body.data?.length > 0 ? r.body.data : undefined;
      },
      { timeoutMs: 30_000, what: 'the segment to have its member' },
    );
    expect(members.map((m: { user_id: string }) => m.user_id)).toEqual([user]);
  });

  it('after a rotation in the keys file (no restart), new rows carry the new version’s pseudonym', async () => {
    writeFileSync(
      path,
      JSON.stringify(
        keysFile([
          { version: 1, key: KEY_V1 },
          { version: 2, key: KEY_V2 },
        ]),
      ),
    );
    await waitFor(() => ring.privacy(APP).key?.version === 2, { timeoutMs: 10_000, what: 'the reload' });
    const rotated = `${user}-r`;
    await sendPatient('PAT-0042', rotated);
    const rows = await waitFor(
      async () => {
        const r = await sql(`SELECT props.patient_id.:String AS patient_id, pseudonym_key FROM events WHERE user_id = '${rotated}'`);
        return r.length > 0 ? r : undefined;
      },
      { timeoutMs: 30_000, what: 'the rotated row' },
    );
    expect(rows).toEqual([{ patient_id: PAT_V2, pseudonym_key: 2 }]);
  });
});
