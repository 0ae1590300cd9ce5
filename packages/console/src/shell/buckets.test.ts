import { HOUR_MS, MINUTE_MS, buckets, total } from './buckets';

describe('buckets', () => {
  const now = Date.parse('2026-11-28T10:42:13Z');

  it('gives every hour up to the current one, 0 where the API left an hour out', () => {
    const rows = [
      { hour: '2026-11-28T08:00:00.000Z', entered: 3, exited: 1 },
      { hour: '2026-11-28T10:00:00.000Z', entered: 2, exited: 0 },
    ];
    expect(buckets(rows, 'hour', HOUR_MS, 4, ['entered', 'exited'], now)).toEqual({
      labels: ['11-28 07h', '11-28 08h', '11-28 09h', '11-28 10h'],
      series: [
        [0, 3, 0, 2],
        [0, 1, 0, 0],
      ],
    });
  });

  it('labels minutes HH:MM and fills gaps as asked (null: no point, for a p95)', () => {
    const rows = [{ minute: '2026-11-28T10:41:00.000Z', freshness_p95_seconds: 0.25 }];
    expect(buckets(rows, 'minute', MINUTE_MS, 3, ['freshness_p95_seconds'], now, null)).toEqual({
      labels: ['10:40', '10:41', '10:42'],
      series: [[null, 0.25, null]],
    });
  });

  it('ignores rows outside the span and sums a series with its gaps as 0', () => {
    const rows = [{ hour: '2026-11-20T00:00:00.000Z', created: 9 }];
    expect(buckets(rows, 'hour', HOUR_MS, 2, ['created'], now).series).toEqual([[0, 0]]);
    expect(total([1, null, 2.5])).toBe(3.5);
  });
});
