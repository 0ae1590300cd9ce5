import { opt, t, type ObjectDef } from '../../dsl/types';
import { coordinates } from '../../events/shared-objects';
import { coerceToDef } from './coerce';
import type { Reason } from '../../rules/registry';

const inner: ObjectDef = { name: 'Inner', fields: { ok: opt(t.boolean), at: opt(t.epochMs) } };
const def: ObjectDef = {
  name: 'T',
  fields: {
    flag: opt(t.boolean),
    amount: opt(t.double),
    ids: opt(t.array(t.string)),
    when: opt(t.epochMs),
    where: opt(t.object(coordinates)),
    inner: opt(t.object(inner)),
    list: opt(t.array(t.object(inner))),
    label: opt(t.string),
  },
};

describe('coerceToDef: single values of a flattening client, read by the definition', () => {
  it('reads 1/0 booleans, joined lists, ISO times and "lat, lon" where the definition says so', () => {
    const warnings: Reason[] = [];
    const out = coerceToDef(
      def,
      {
        flag: 1,
        amount: 1,
        ids: 'a, b',
        when: '2025-03-14T15:10:00+05:00',
        where: '24.86, 67.0',
        inner: { ok: 0, at: '2025-03-14T10:10:00Z' },
        list: [{ ok: 1 }],
        label: '1, 2',
        x: 1,
      },
      '$.c',
      warnings,
    );
    expect(out).toEqual({
      flag: true,
      amount: 1,
      ids: ['a', 'b'],
      when: 1741947000000,
      where: { lat: 24.86, lon: 67 },
      inner: { ok: false, at: 1741947000000 },
      list: [{ ok: true }],
      label: '1, 2',
      x: 1,
    });
    expect(warnings.map((w) => [w.path, w.rule])).toEqual([
      ['$.c.flag', 'boolean_as_number'],
      ['$.c.ids', 'joined_list'],
      ['$.c.when', 'time_as_string'],
      ['$.c.where', 'lat_lon_string'],
      ['$.c.inner.ok', 'boolean_as_number'],
      ['$.c.inner.at', 'time_as_string'],
      ['$.c.list[0].ok', 'boolean_as_number'],
    ]);
  });

  it('leaves what it cannot read for the validator (2 as a boolean, an unparsable time, one coordinate)', () => {
    const warnings: Reason[] = [];
    const input = { flag: 2, when: 'next tuesday', where: '24.86' };
    expect(coerceToDef(def, input, '$.c', warnings)).toBe(input);
    expect(warnings).toEqual([]);
  });
});
