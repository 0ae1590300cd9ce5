import { KeyRing, createLogger } from '@evp/core';
import { uniqueName, waitFor } from '@evp/testkit';
import { createEmbeddedParts } from './embedded-parts';
import { startPipeline, type RunningPipeline } from './pipeline';

/**
 * Suppression end to end on `npm start`'s composition (issue 40, "Suppress first"): a user and a
 * patient are erased; the original upload sent again answers 200 and adds no row, an upload of
 * another user naming the erased patient is dropped too, another user is unaffected, and once the
 * user's suppression is lifted a new upload is stored again.
 */
const APP = 'supp-app';
const SDK = 'sdk_supp_0123456789abcdef';
const API = 'api_supp_0123456789abcdef';

describe('suppression on the embedded pipeline', () => {
  const database = uniqueName('supp').replace(/-/g, '_');
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database });
  let pipeline: RunningPipeline;
  const run = Date.now().toString(36);
  const [userGone, userKept, patientGone, patientKept] = [`u-gone-${run}`, `u-kept-${run}`, `p-gone-${run}`, `p-kept-${run}`];

  const envelope = (user: string, patients: string[], minute: number) => ({
    id: user,
    tz: '+00:00',
    internal: { s_id: `${user}_1700000000000_0`, sdk: 'android/2.4.1', a_id: 'a', a_ver: '1.2.3 (45)', d_id: 'd-1', os: 'android' },
    data: patients.map((p, i) => ({
      time: `2026-11-28 10:${String(minute).padStart(2, '0')}:0${i}.000`,
      name: 'patient',
      property: 'add',
      ctx: { __ol: true, patient_id: p, site_id: 's-1', action: 'add', category: 'facility', type: 'outpatient' },
    })),
  });
  const upload = async (body: unknown) => {
    const res = await fetch(`${pipeline.baseUrl}/v1/ingest/log`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${SDK}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    return res.status;
  };
  const api = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${pipeline.baseUrl}${route}`, {
      method,
      headers: { Authorization: `Bearer ${API}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, any> };
  };
  /** Events rows by user and patient, physical rows included (a masked row would still count). */
  const rows = async () =>
    (
      await parts.analytics.query<{ user_id: string; patient: string }>(
        `SELECT user_id, props.patient_id.:String AS patient FROM events WHERE app_id = {app:String} ORDER BY user_id, patient SETTINGS apply_deleted_mask = 0`,
        { app: APP },
      )
    ).map((r) => `${r.user_id}/${r.patient}`);
  const rowsReach = (n: number, what: string) => waitFor(async () => ((await rows()).length >= n ? rows() : undefined), { timeoutMs: 30_000, what });

  beforeAll(async () => {
    pipeline = await startPipeline({
      parts,
      keys: new KeyRing({
        keys: [
          { id: 's-sdk', app_id: APP, role: 'sdk', key: SDK },
          { id: 's-api', app_id: APP, role: 'api', key: API },
        ],
      }),
      logger: createLogger('supp', 'silent'),
      sinkFlushMs: 50,
      privacyHashKey: 'suppression-embedded-test-key-0123456789',
      privacyIntervalMs: 100,
    });
  });
  afterAll(async () => {
    await pipeline.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
  });

  it('erases, refuses the same upload sent again (200, 0 rows), leaves another user alone, and stores again after a lift', async () => {
    const original = envelope(userGone, [patientGone], 1);
    expect(await upload(original)).toBe(200);
    expect(await upload(envelope(userKept, [patientKept], 1))).toBe(200);
    expect(await rowsReach(2, 'both uploads stored')).toEqual([`${userGone}/${patientGone}`, `${userKept}/${patientKept}`]);

    const created = await api('POST', '/v1/privacy/erasures', { user_ids: [userGone], patient_ids: [patientGone] });
    expect(created.status).toBe(202);
    const done = await waitFor(
      async () => {
        const r = await api('GET', `/v1/privacy/erasures/${created.body.id}`);
        return r.body.state === 'completed' || r.body.state === 'failed' ? r.body : undefined;
      },
      { timeoutMs: 60_000, what: 'the erasure to end' },
    );
    expect(done.state).toBe('completed');
    expect(await rows()).toEqual([`${userKept}/${patientKept}`]);

    // The original upload again: 200 as ever, and nothing stored (the gateway drops it before Kafka).
    expect(await upload(original)).toBe(200);
    // Another user's upload naming the erased patient: the validator drops that event; the other
    // event of the same raw message is stored, so once it is there the whole message was decided.
    expect(await upload(envelope(userKept, [patientGone, patientKept], 2))).toBe(200);
    expect(await rowsReach(2, 'the kept user’s new event')).toEqual([`${userKept}/${patientKept}`, `${userKept}/${patientKept}`]);

    const lifted = await api('DELETE', `/v1/privacy/suppressions/${userGone}`);
    expect(lifted.status).toBe(204);
    // The user may upload again (the patient stays suppressed: only the user was lifted).
    expect(await upload(envelope(userGone, [patientKept], 3))).toBe(200);
    expect(await rowsReach(3, 'the upload after the lift')).toEqual([`${userGone}/${patientKept}`, `${userKept}/${patientKept}`, `${userKept}/${patientKept}`]);
  }, 120_000);
});
