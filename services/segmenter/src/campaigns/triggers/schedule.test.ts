import type { CampaignDocument } from '../document';
import type { StoredCampaign } from '../source';
import { latestOccurrence } from './schedule';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 10, 0, 0);
const campaign = (trigger: CampaignDocument['trigger'], extra: Partial<CampaignDocument> = {}): StoredCampaign => ({
  app_id: 'a',
  id: 'c',
  version: 1,
  state: 'active',
  document: { name: 'n', trigger, action: {} as CampaignDocument['action'], ...extra },
  action_ids: [1],
  splits: [],
  created_at: T0 + 30 * 60_000,
});

describe('latestOccurrence', () => {
  it('at: the instant once it has come', () => {
    const c = campaign({ schedule: { at: '2026-01-10T06:00:00Z' }, segment: 's' });
    expect(latestOccurrence(c, T0 + 5 * HOUR)).toBeUndefined();
    expect(latestOccurrence(c, T0 + 6 * HOUR)).toBe(T0 + 6 * HOUR);
    expect(latestOccurrence(c, T0 + 9 * HOUR)).toBe(T0 + 6 * HOUR);
  });

  it('every: multiples of the interval since start_at, else since creation', () => {
    const fromStart = campaign({ schedule: { every: 'PT6H' }, segment: 's' }, { start_at: '2026-01-10T02:00:00Z' });
    expect(latestOccurrence(fromStart, T0 + HOUR)).toBeUndefined();
    expect(latestOccurrence(fromStart, T0 + 2 * HOUR)).toBe(T0 + 2 * HOUR);
    expect(latestOccurrence(fromStart, T0 + 13 * HOUR)).toBe(T0 + 8 * HOUR);
    const fromCreation = campaign({ schedule: { every: 'PT1H' }, segment: 's' });
    expect(latestOccurrence(fromCreation, T0 + 3 * HOUR)).toBe(T0 + 2.5 * HOUR);
  });

  it('other triggers have no occurrences', () => {
    expect(latestOccurrence(campaign({ api: true }), T0)).toBeUndefined();
  });
});
