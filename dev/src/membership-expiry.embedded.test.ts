import { KeyRing, createLogger, parseKeysFile } from '@evp/core';
import { uniqueName, waitFor } from '@evp/testkit';
import { createEmbeddedParts } from './embedded-parts';
import { startPipeline, type RunningPipeline } from './pipeline';

/**
 * The expiry of ended memberships is on in `npm start`'s composition (docs/privacy.md, "Segment
 * memberships"): with the app's `history` at 30 days, a membership that ended 40 days before the
 * pipeline's clock is deleted by the engine's timer, one that ended 10 days before stays. The clock
 * runs 40 days ahead of the wall clock (the pipeline's `now`), the interval is 300 ms.
 */
const APP = 'expiry-app';
const DAY = 86_400_000;
const AHEAD = 40 * DAY;
const ts = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

describe('expiry of ended memberships on the embedded pipeline', () => {
  const database = uniqueName('expiry').replace(/-/g, '_');
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database });
  const ring = new KeyRing(
    parseKeysFile(
      JSON.stringify({
        keys: [{ id: 'e-api', app_id: APP, role: 'api', key: 'api_expiry_0123456789abcdef' }],
        apps: { [APP]: { retention: { history: 30 } } },
      }),
      'keys.json',
    ),
  );
  let pipeline: RunningPipeline;
  beforeAll(async () => {
    pipeline = await startPipeline({
      parts,
      keys: ring,
      logger: createLogger('expiry', 'silent'),
      now: () => Date.now() + AHEAD,
      segments: { recomputeIntervalMs: 0, expiryIntervalMs: 300 },
    });
  });
  afterAll(async () => {
    await pipeline.stop();
    await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
  });

  it('deletes, on its own timer, the key that ended more than the days ago and keeps the one that ended since', async () => {
    const now = Date.now() + AHEAD;
    for (const [user, exitedDaysAgo] of [
      ['old', 40],
      ['new', 10],
    ] as const)
      await parts.analytics.insert('segment_members', [
        {
          app_id: APP,
          segment_id: 's',
          user_id: user,
          is_member: false,
          entered_at: ts(now - 100 * DAY),
          exited_at: ts(now - exitedDaysAgo * DAY),
          version: 1,
          seq: 2,
          emitted: true,
          state_version: 5,
          written_at: ts(now - exitedDaysAgo * DAY),
        },
      ]);
    const users = async () =>
      (
        await parts.analytics.query<{ user_id: string }>(`SELECT user_id FROM segment_members FINAL WHERE app_id = {app:String} ORDER BY user_id`, { app: APP })
      ).map((r) => r.user_id);
    expect(await users()).toEqual(['new', 'old']);
    await waitFor(async () => (await users()).length === 1, { timeoutMs: 20_000, what: 'the expiry timer to delete the old key' });
    expect(await users()).toEqual(['new']);
    expect(await parts.analytics.query(`SELECT segment_id, floor FROM segment_seq_floors FINAL WHERE app_id = {app:String}`, { app: APP })).toEqual([
      { segment_id: 's', floor: 2 },
    ]);
  }, 60_000);
});
