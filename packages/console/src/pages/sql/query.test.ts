import { cellText, chartColumns, queryParams, resultWords } from './query';

describe('the SQL page’s logic', () => {
  it('finds a query’s {name:Type} parameters once each, in order', () => {
    expect(queryParams('SELECT {a:String}, {b:UInt8} WHERE x = {a:String} AND {c: DateTime}')).toEqual(['a', 'b', 'c']);
    expect(queryParams('SELECT 1')).toEqual([]);
  });

  it('charts the first numeric column over the first time column, or nothing', () => {
    const meta = (types: string[]) => types.map((type, i) => ({ name: `c${i}`, type }));
    expect(chartColumns(meta(['String', 'UInt64', 'DateTime64(3)', 'Float64']))).toEqual({ x: 'c2', y: 'c1' });
    expect(chartColumns(meta(['Nullable(Date)', 'Nullable(Decimal(10, 2))']))).toEqual({ x: 'c0', y: 'c1' });
    expect(chartColumns(meta(['String', 'UInt64']))).toBeNull();
  });

  it('shows objects as JSON, null as nothing, and says how many rows in how long', () => {
    expect([cellText({ a: [1] }), cellText(null), cellText(3), cellText('x')]).toEqual(['{"a":[1]}', '', '3', 'x']);
    expect(resultWords({ meta: [], data: [], rows: 1, statistics: { elapsed: 0.0123 } })).toBe('1 row in 0.012 s');
    expect(resultWords({ meta: [], data: [], rows: 3 })).toBe('3 rows');
  });
});
