import { leftOutBy } from './client';
import { omissionsToleratedFor, toleratingOmissions } from './omissions';
import { opt, req, t, type ObjectDef } from './types';
import { validateObject } from './validate';

const item: ObjectDef = {
  name: 'It',
  fields: { id: req(t.string), type: req(t.string, { client: { mayOmit: leftOutBy('ios-kenkai', 'client X never sends it') } }) },
};
const def: ObjectDef = {
  name: 'Ev',
  fields: {
    a: req(t.string),
    b: req(t.int, { client: { mayOmit: leftOutBy(['ios-cf', 'ios-kenkai'], 'client X never sends it') } }),
    items: opt(t.array(t.object(item))),
  },
};
const at = (r: { path: string; rule: string }[]) => r.map((e) => [e.path, e.rule]);

describe('required fields real clients leave out (client.mayOmit)', () => {
  it('stay required for everyone but the clients recognised as leaving them out, also nested', () => {
    const value = { a: 'x', items: [{ id: 'i' }, { id: 'j', type: 't' }] };
    const strict = validateObject(def, value, '$.ctx');
    expect(at(strict.reasons)).toEqual([
      ['$.ctx.b', 'required'],
      ['$.ctx.items[0].type', 'required'],
    ]);
    const tolerant = toleratingOmissions(def, 'ios-kenkai');
    expect(toleratingOmissions(def, 'ios-kenkai')).toBe(tolerant);
    expect([omissionsToleratedFor(tolerant), omissionsToleratedFor(def)]).toEqual(['ios-kenkai', undefined]);
    const r = validateObject(tolerant, value, '$.ctx');
    expect(r.reasons).toEqual([]);
    expect(r.value).toEqual(value);
    expect(r.warnings).toEqual([
      { path: '$.ctx.b', rule: 'required_missing', message: 'b is required by the spec but client X never sends it; accepted without it' },
      { path: '$.ctx.items[0].type', rule: 'required_missing', message: 'type is required by the spec but client X never sends it; accepted without it' },
    ]);
    // The definition itself is unchanged; a wrong value is still wrong.
    expect(def.fields.b!.required).toBe(true);
    expect(at(validateObject(tolerant, { a: 'x', b: '1' }, '$').reasons)).toEqual([['$.b', 'type']]);
  });

  it('are tolerated only for the clients that leave them out', () => {
    const r = validateObject(toleratingOmissions(def, 'ios-cf'), { a: 'x', items: [{ id: 'i' }] }, '$');
    expect(at(r.reasons)).toEqual([['$.items[0].type', 'required']]);
    expect(at(r.warnings)).toEqual([['$.b', 'required_missing']]);
  });

  it('leave a definition without such fields as it is', () => {
    const plain: ObjectDef = { name: 'P', fields: { a: req(t.string), o: opt(t.object({ name: 'Q', fields: { q: req(t.int) } })) } };
    expect(toleratingOmissions(plain, 'ios-cf')).toBe(plain);
    expect(omissionsToleratedFor(plain)).toBeUndefined();
  });
});
