import fc from 'fast-check';
import { formatDateTime64 } from './time';

describe('formatDateTime64', () => {
  it('renders epoch ms as UTC text with milliseconds', () => {
    expect(formatDateTime64(0)).toBe('1970-01-01 00:00:00.000');
    expect(formatDateTime64(1709251199999)).toBe('2024-02-29 23:59:59.999');
    expect(formatDateTime64(-1)).toBe('1969-12-31 23:59:59.999');
    expect(formatDateTime64(Date.UTC(1900, 0, 1))).toBe('1900-01-01 00:00:00.000');
    expect(formatDateTime64(Date.UTC(2299, 11, 31, 23, 59, 59, 999))).toBe('2299-12-31 23:59:59.999');
  });

  it('agrees with Date#toISOString across 1900–2299, in any order of calls', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2299, 11, 31, 23, 59, 59, 999) }), (ms) => {
        expect(formatDateTime64(ms)).toBe(new Date(ms).toISOString().replace('T', ' ').slice(0, 23));
      }),
      { numRuns: 2000 },
    );
  });
});
