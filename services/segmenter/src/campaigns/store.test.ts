import { useMigratedChdb } from '@evp/testkit';
import type { CampaignDocument } from './document';
import { variantActionId } from './ids';
import { createCampaignStore } from './store';

// The store on chdb, as the campaign worker reads it (CampaignReader): the latest version of each
// campaign, active ones of one app or of all, the per-variant action ids, and the app settings.
const chdb = useMigratedChdb('campaignstore');
const action = {
  type: 'message',
  render_method: 'push_notification',
  delivery_mode: 'one-off',
  content: { title: 'Hello', body: 'Hi' },
  expires_after: 'P1D',
} as CampaignDocument['action'];
const doc = (name: string, variants = 0): CampaignDocument => ({
  name,
  trigger: { api: true },
  action,
  ...(variants > 0 ? { variants: Array.from({ length: variants }, () => ({ weight: 1, action: {} })) } : {}),
});

describe('campaign store', () => {
  let clock = Date.UTC(2026, 0, 1);
  let ids = 0;
  const store = () => createCampaignStore({ analytics: chdb.analytics, now: () => (clock += 1000), newId: () => `c-${++ids}` });

  it('reads the latest version; active of one app or of every app; action ids per variant', async () => {
    const s = store();
    const a = await s.create('app-a', doc('A', 3));
    const b = await s.create('app-a', doc('B'));
    const c = await s.create('app-b', doc('C'));
    expect(a).toMatchObject({ id: 'c-1', version: 1, state: 'draft', name: 'A' });
    expect(a.action_ids).toEqual([1, 2, 3].map((i) => variantActionId('app-a', 'c-1', i)));
    expect(b.action_ids).toEqual([variantActionId('app-a', 'c-2', 1)]);
    expect(await s.active()).toEqual([]);
    const live = await s.change(a, { state: 'active' });
    await s.change(await s.change(c, { state: 'active' }), { state: 'paused' });
    const renamed = await s.change(live, { document: doc('A2', 2) });
    expect(renamed).toMatchObject({ version: 3, state: 'active', name: 'A2', created_at: a.created_at });
    // A fresh store reads what was written (nothing is kept in memory).
    const again = store();
    expect(await again.get('app-a', 'c-1')).toEqual(renamed);
    expect((await again.active('app-a')).map((x) => [x.id, x.version, x.action_ids.length])).toEqual([['c-1', 3, 2]]);
    expect((await again.active()).map((x) => x.id)).toEqual(['c-1']);
    expect((await again.list('app-a')).map((x) => [x.id, x.state])).toEqual([
      ['c-1', 'active'],
      ['c-2', 'draft'],
    ]);
    expect((await again.list('app-b')).map((x) => [x.id, x.state, x.version])).toEqual([['c-3', 'paused', 3]]);
    expect(await again.get('app-b', 'c-1')).toBeUndefined();
  });

  it('keeps the split history: one entry per change of holdout or weights, from the change', async () => {
    const s = store();
    const created = await s.create('app-h', { ...doc('H'), holdout: 0.5 });
    const t1 = created.created_at;
    expect(created.splits).toEqual([{ from: t1, holdout: 0.5, weights: [1] }]);
    // A change of state or of anything but the split adds nothing.
    const active = await s.change(await s.change(created, { state: 'active' }), { document: { ...doc('H2'), holdout: 0.5 } });
    expect(active.splits).toEqual(created.splits);
    const edited = await s.change(active, { document: { ...doc('H2', 2), holdout: 0.1 } });
    expect(edited.splits).toEqual([
      { from: t1, holdout: 0.5, weights: [1] },
      { from: edited.updated_at, holdout: 0.1, weights: [1, 1] },
    ]);
    expect((await store().get('app-h', created.id))?.splits).toEqual(edited.splits);
  });

  it('appends adaptive epochs to the latest version; an edit keeps them unless it changes the document’s split', async () => {
    const s = store();
    const created = await s.create('app-e', { ...doc('E', 2), holdout: 0.1 });
    const t1 = created.created_at;
    const epoch = { from: t1 + 5, holdout: 0.1, weights: [0.32, 0.68], adaptive: true as const };
    await s.appendSplit(created, epoch);
    const moved = (await s.get('app-e', created.id)) as NonNullable<Awaited<ReturnType<typeof s.get>>>;
    expect([moved.version, moved.splits]).toEqual([2, [{ from: t1, holdout: 0.1, weights: [1, 1] }, epoch]]);
    // Renamed: the split is the document's first one still, the epoch stays in force.
    const renamed = await s.change(moved, { document: { ...doc('E2', 2), holdout: 0.1 } });
    expect(renamed.splits).toEqual(moved.splits);
    // The document's weights edited: the split starts again from them.
    const reweighted = await s.change(renamed, {
      document: {
        ...doc('E2', 2),
        holdout: 0.1,
        variants: [
          { weight: 3, action: {} },
          { weight: 1, action: {} },
        ],
      },
    });
    expect(reweighted.splits).toEqual([...moved.splits, { from: reweighted.updated_at, holdout: 0.1, weights: [3, 1] }]);
  });

  it('appends an epoch only onto the split it was computed from: a stale read (a paused replica) or an edited split writes nothing', async () => {
    const s = store();
    const created = await s.create('app-stale', { ...doc('S', 2), holdout: 0.1 });
    const t1 = created.created_at;
    const epoch = (from: number, w: number) => ({ from, holdout: 0.1, weights: [w, 1 - w], adaptive: true as const });
    // Two replicas read version 1; the first appends.
    expect(await s.appendSplit(created, epoch(t1 + 5, 0.32))).toBe(true);
    // The second, computed from version 1 as well, comes late: skipped, version 2 stays the latest.
    expect(await s.appendSplit(created, epoch(t1 + 6, 0.3))).toBe(false);
    const moved = (await s.get('app-stale', created.id)) as NonNullable<Awaited<ReturnType<typeof s.get>>>;
    expect([moved.version, moved.splits]).toEqual([2, [{ from: t1, holdout: 0.1, weights: [1, 1] }, epoch(t1 + 5, 0.32)]]);
    // Read afresh, the next epoch goes on; a rename in between does not make it stale.
    const renamed = await s.change(moved, { document: { ...doc('S2', 2), holdout: 0.1 } });
    expect(await s.appendSplit(moved, epoch(t1 + 7, 0.5))).toBe(true);
    const latest = (await s.get('app-stale', created.id)) as NonNullable<Awaited<ReturnType<typeof s.get>>>;
    expect([latest.version, latest.document.name, latest.splits.length]).toEqual([renamed.version + 1, 'S2', 3]);
    // An edit of the split since the read: the epoch is stale.
    const edited = await s.change(latest, { document: { ...doc('S2', 2), holdout: 0.2 } });
    expect(await s.appendSplit(latest, epoch(t1 + 8, 0.6))).toBe(false);
    expect((await s.get('app-stale', created.id))?.version).toBe(edited.version);
    expect(await s.appendSplit({ ...created, id: 'gone' }, epoch(t1 + 9, 0.6))).toBe(false);
  });

  it('keeps settings per app, the latest write winning', async () => {
    const s = store();
    expect(await s.settings('app-s')).toEqual({ max_per_user_per_day: null });
    await s.putSettings('app-s', { max_per_user_per_day: 2 });
    await s.putSettings('app-s', { max_per_user_per_day: 5 });
    expect(await s.settings('app-s')).toEqual({ max_per_user_per_day: 5 });
    expect(await s.settings('app-t')).toEqual({ max_per_user_per_day: null });
    await s.putSettings('app-s', { max_per_user_per_day: null });
    expect(await store().settings('app-s')).toEqual({ max_per_user_per_day: null });
  });
});
