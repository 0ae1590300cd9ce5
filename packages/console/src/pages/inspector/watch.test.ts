import type { InspectedEvent } from '@evp/segmenter';
import { KEEP, OVERLAP_MS, Watch } from './watch';

const event = (id: string, received_at: string, time = received_at): InspectedEvent =>
  ({ event_id: id, received_at, time, warnings: [] }) as unknown as InspectedEvent;

describe('the inspector’s watch', () => {
  it('asks with the filters, then since the newest row seen less the overlap (dead letters unfiltered)', () => {
    const w = new Watch({ user_id: 'u-1', name: '', request_id: 'r 1' });
    expect(w.query('events')).toBe(`/v1/inspect/events?user_id=u-1&request_id=r+1&limit=${KEEP}`);
    w.add('events', [event('a', '2026-11-28T10:00:05.000Z'), event('b', '2026-11-28T10:00:01.000Z')]);
    expect(w.query('events')).toBe(`/v1/inspect/events?user_id=u-1&request_id=r+1&since=${Date.parse('2026-11-28T10:00:05.000Z') - OVERLAP_MS}&limit=${KEEP}`);
    expect(w.query('deadletters')).toBe(`/v1/inspect/deadletters?limit=${KEEP}`);
  });

  it('keeps a row seen twice once, newest first (events by receipt, then their own time)', () => {
    const w = new Watch({ user_id: '', name: '', request_id: '' });
    w.add('events', [event('a', '2026-11-28T10:00:00.000Z', '2026-11-28T09:00:00.000Z'), event('b', '2026-11-28T10:00:00.000Z', '2026-11-28T09:30:00.000Z')]);
    w.add('events', [event('a', '2026-11-28T10:00:00.000Z', '2026-11-28T09:00:00.000Z'), event('c', '2026-11-28T10:00:01.000Z')]);
    expect([w.count('events'), w.list('events').map((e) => e.event_id)]).toEqual([3, ['c', 'b', 'a']]);
    expect(w.count('rejected')).toBe(0);
  });

  it('shows the newest KEEP only', () => {
    const w = new Watch({ user_id: '', name: '', request_id: '' });
    w.add(
      'events',
      Array.from({ length: KEEP + 5 }, (_, i) => event(`e${i}`, new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString())),
    );
    expect([w.count('events'), w.list('events').length, w.list('events')[0]?.event_id]).toEqual([KEEP + 5, KEEP, `e${KEEP + 4}`]);
  });
});
