import type { CampaignDocument } from './document';
import type { StoredCampaign } from './source';
import { dueOccurrences, liveAt, splitTriggerBatch, type UsersItem } from './trigger-batch';
import type { TriggerItem } from './trigger-items';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 10, 0, 0);
const campaign = (
  id: string,
  trigger: CampaignDocument['trigger'],
  extra: Partial<StoredCampaign> & { doc?: Partial<CampaignDocument> } = {},
): StoredCampaign => {
  const { doc, ...rest } = extra;
  return {
    app_id: 'a',
    id,
    version: 1,
    state: 'active',
    document: { name: 'n', trigger, action: {} as CampaignDocument['action'], ...doc },
    action_ids: [1],
    splits: [],
    created_at: T0,
    ...rest,
  };
};

const users = (campaign_id: string, trigger: UsersItem['trigger'], user: string): UsersItem => ({
  kind: 'users',
  app_id: 'a',
  campaign_id,
  run_key: `${trigger}:${user}`,
  trigger,
  at: T0,
  users: [{ user_id: user }],
});

describe('splitTriggerBatch', () => {
  it('keeps event and schedule items one by one in batch order, and gathers the named users’ items per campaign in batch order', () => {
    const schedule: TriggerItem = { kind: 'schedule', app_id: 'a', campaign_id: 'c3', run_at: T0 };
    const event = users('c1', 'event', 'e1');
    const [e1, api2, e2, api1] = [users('c1', 'segment_entry', 'u1'), users('c2', 'api', 'u2'), users('c1', 'segment_entry', 'u3'), users('c1', 'api', 'u4')];
    expect(splitTriggerBatch([e1, schedule, api2, event, e2, api1] as TriggerItem[])).toEqual({
      single: [schedule, event],
      byCampaign: [[e1, e2, api1], [api2]],
    });
    expect(splitTriggerBatch([])).toEqual({ single: [], byCampaign: [] });
  });
});

describe('liveAt', () => {
  const windowed = campaign('c', { api: true }, { doc: { start_at: '2026-01-10T02:00:00Z', end_at: '2026-01-10T06:00:00Z' } });

  it('acts on a trigger inside the window of an active campaign while the campaign has not ended', () => {
    expect(liveAt(windowed, T0 + 2 * HOUR, T0 + 3 * HOUR)).toBe(true);
    expect(liveAt(windowed, T0 + 2 * HOUR - 1, T0 + 3 * HOUR)).toBe(false);
    expect(liveAt(windowed, T0 + 6 * HOUR, T0 + 3 * HOUR)).toBe(false);
    // A trigger from inside the window, acted on after the end: not acted on.
    expect(liveAt(windowed, T0 + 3 * HOUR, T0 + 6 * HOUR)).toBe(false);
    expect(liveAt({ ...windowed, state: 'paused' }, T0 + 3 * HOUR, T0 + 3 * HOUR)).toBe(false);
    expect(liveAt(campaign('open', { api: true }), T0 + 100 * HOUR, T0 + 200 * HOUR)).toBe(true);
  });
});

describe('dueOccurrences', () => {
  const hourly = campaign('hourly', { schedule: { every: 'PT1H' }, segment: 's' });
  const once = campaign('once', { schedule: { at: '2026-01-10T05:00:00Z' }, segment: 's' });
  const api = campaign('api', { api: true });

  it('gives each schedule campaign’s latest occurrence not older than the catch-up bound', () => {
    expect(dueOccurrences([hourly, once, api], T0 + 5.5 * HOUR, HOUR, new Map())).toEqual([
      { kind: 'schedule', app_id: 'a', campaign_id: 'hourly', run_at: T0 + 5 * HOUR },
      { kind: 'schedule', app_id: 'a', campaign_id: 'once', run_at: T0 + 5 * HOUR },
    ]);
    // `once` is 2 h old: past the bound, skipped; `hourly`'s latest is 0.5 h old.
    expect(dueOccurrences([hourly, once], T0 + 7.5 * HOUR, HOUR, new Map())).toEqual([
      { kind: 'schedule', app_id: 'a', campaign_id: 'hourly', run_at: T0 + 7 * HOUR },
    ]);
  });

  it('leaves out an occurrence this process produced already', () => {
    const produced = new Map([['a:hourly', T0 + 5 * HOUR]]);
    expect(dueOccurrences([hourly], T0 + 5.5 * HOUR, HOUR, produced)).toEqual([]);
    expect(dueOccurrences([hourly], T0 + 6 * HOUR, HOUR, produced)).toEqual([{ kind: 'schedule', app_id: 'a', campaign_id: 'hourly', run_at: T0 + 6 * HOUR }]);
  });
});
