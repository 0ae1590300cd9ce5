import type { CompiledSegment } from '@evp/segment-language';
import { collectWork, coveredFull, timeDrivenWork } from './batch-work';
import type { SegmentEntry } from './work';

const entry = (app_id: string, id: string, timeDriven: boolean): SegmentEntry => ({
  app_id,
  id,
  compiled: { sql: '', params: {}, events: [], catalogs: [], timeDriven, segments: [] } satisfies CompiledSegment,
});

describe('collectWork', () => {
  it('gathers a batch per segment, in first-seen order: the latest full request, the union of users, the item counts', () => {
    const work = collectWork([
      { kind: 'users', app_id: 'a', segment_id: 's1', users: ['u2', 'u1'] },
      { kind: 'full', app_id: 'a', segment_id: 's2', requested_at: 300 },
      { kind: 'users', app_id: 'a', segment_id: 's1', users: ['u1', 'u3'] },
      { kind: 'full', app_id: 'a', segment_id: 's2', requested_at: 100 },
      { kind: 'users', app_id: 'b', segment_id: 's1', users: ['u9'] },
      { kind: 'full', app_id: 'a', segment_id: 's1', requested_at: 200 },
    ]);
    expect([...work.entries()].map(([k, w]) => [k, { ...w, users: [...w.users] }])).toEqual([
      ['a:s1', { app_id: 'a', segment_id: 's1', fullRequestedAt: 200, fullItems: 1, users: ['u2', 'u1', 'u3'], userItems: 2 }],
      ['a:s2', { app_id: 'a', segment_id: 's2', fullRequestedAt: 300, fullItems: 2, users: [], userItems: 0 }],
      ['b:s1', { app_id: 'b', segment_id: 's1', fullRequestedAt: undefined, fullItems: 0, users: ['u9'], userItems: 1 }],
    ]);
    expect(collectWork([]).size).toBe(0);
  });
});

describe('coveredFull', () => {
  it('skips a full item only when a full evaluation of the same version started at or after its request', () => {
    const last = { startedAt: 1_000, version: 3 };
    expect(coveredFull(last, 999, 3)).toBe(true);
    expect(coveredFull(last, 1_000, 3)).toBe(true);
    expect(coveredFull(last, 1_001, 3)).toBe(false);
    expect(coveredFull(last, 500, 4)).toBe(false);
    expect(coveredFull(undefined, 500, 3)).toBe(false);
  });
});

describe('timeDrivenWork', () => {
  const segments = [entry('a', 'relative', true), entry('a', 'static', false), entry('b', 'last-seen', true)];

  it('asks a full recompute of each time-driven segment, at the multiple of the interval at or before now', () => {
    expect(timeDrivenWork(segments, 125_000, 60_000)).toEqual([
      { kind: 'full', app_id: 'a', segment_id: 'relative', requested_at: 120_000 },
      { kind: 'full', app_id: 'b', segment_id: 'last-seen', requested_at: 120_000 },
    ]);
    // Two replicas asking in the same interval ask for the same instant: the owner evaluates once.
    expect(timeDrivenWork(segments, 179_999, 60_000)).toEqual(timeDrivenWork(segments, 120_000, 60_000));
  });

  it('with no interval (the timer off, called by hand), asks at now', () => {
    expect(timeDrivenWork(segments, 125_001, 0).map((i) => (i.kind === 'full' ? i.requested_at : undefined))).toEqual([125_001, 125_001]);
    expect(timeDrivenWork([], 1, 60_000)).toEqual([]);
  });
});
