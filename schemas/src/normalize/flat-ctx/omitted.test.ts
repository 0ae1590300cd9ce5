import { validateObject } from '../../dsl/validate';
import { opt, req, t, type ObjectDef } from '../../dsl/types';
import { omittedWarnings, relaxedDef } from './omitted';

const item: ObjectDef = { name: 'It', fields: { id: req(t.string), type: req(t.string, { clientOmits: 'client X never sends it' }) } };
const def: ObjectDef = {
  name: 'Ev',
  fields: { a: req(t.string), b: req(t.int, { clientOmits: 'client X never sends it' }), items: opt(t.array(t.object(item))) },
};

describe('required fields a client never sends', () => {
  it('stay required for everyone; the relaxed definition accepts their absence, also nested', () => {
    const value = { a: 'x', items: [{ id: 'i' }] };
    expect(validateObject(def, value, '$').errors.map((e) => [e.path, e.rule])).toEqual([
      ['$.b', 'required'],
      ['$.items[0].type', 'required'],
    ]);
    const relaxed = relaxedDef(def);
    expect(relaxedDef(def)).toBe(relaxed);
    expect(validateObject(relaxed, value, '$').errors).toEqual([]);
    expect(def.fields.b!.required).toBe(true);
  });

  it('are reported as client_never_sends where absent', () => {
    expect(omittedWarnings(def, { a: 'x', items: [{ id: 'i' }, { id: 'j', type: 't' }] }, '$.ctx').map((w) => [w.path, w.rule])).toEqual([
      ['$.ctx.b', 'client_never_sends'],
      ['$.ctx.items[0].type', 'client_never_sends'],
    ]);
  });

  it('leave a definition without such fields as it is', () => {
    const plain: ObjectDef = { name: 'P', fields: { a: req(t.string) } };
    expect(relaxedDef(plain)).toBe(plain);
  });
});
