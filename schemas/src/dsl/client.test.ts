import { defaultTo, emptyDetails, epochZeroTime, leftOutBy, unsetValues } from './client';
import { toleratingOmissions } from './omissions';
import { opt, req, t, type ObjectDef } from './types';
import { validateObject } from './validate';

/** FieldDef.client: what real clients send instead of the spec, each accepted with a named warning. */
const inner: ObjectDef = { name: 'ClientInner', fields: { id: req(t.string) } };
const def: ObjectDef = {
  name: 'ClientProbe',
  fields: {
    id: req(t.string, { client: { default: defaultTo('the order id', (v) => v.order_id) } }),
    order_id: opt(t.string),
    patient_id: req(t.string, { client: { aliases: ['pid'], movedFrom: ['item.patient_id'] } }),
    module_id: opt(t.string),
    has_chatapp: opt(t.boolean, { client: { aliases: ['has_whatsapp'] } }),
    birth_year: opt(t.int, { min: 1900, client: { unset: unsetValues(0) } }),
    at: opt(t.string, { client: { unset: epochZeroTime } }),
    details: opt(t.string, { client: { unset: emptyDetails } }),
    urgent: req(t.boolean, { client: { default: defaultTo('not urgent', () => false) } }),
    score: req(t.double, { client: { mayOmit: leftOutBy('ios-cf', 'client X sends it only with a result') } }),
    value: opt(t.string, { client: { stringify: true } }),
    item: opt(t.object(inner)),
  },
};
const run = (input: unknown) => validateObject(def, input, '$');
const base = { id: 'd1', patient_id: 'p1', urgent: true, score: 1 };

describe('FieldDef.client', () => {
  it('reads a client name of a field (property_alias) and keeps an unread one as an extra', () => {
    const r = run({ ...base, has_whatsapp: true });
    expect(r.value.has_chatapp).toBe(true);
    expect(r.unknown).toEqual({});
    expect(r.warnings).toEqual([
      { path: '$.has_whatsapp', rule: 'property_alias', message: 'has_whatsapp is a client name of has_chatapp; read as has_chatapp' },
    ]);
    // The spec name wins; the client's copy is data, not dropped.
    const both = run({ ...base, has_chatapp: false, has_whatsapp: true });
    expect(both.value.has_chatapp).toBe(false);
    expect(both.unknown).toEqual({ has_whatsapp: true });
    expect(both.warnings.map((w) => w.rule)).toEqual(['unknown_property']);
  });

  it('reads camelCase and upper-case spellings of any field (property_spelling), the exact spelling first', () => {
    const r = run({ ...base, moduleId: 'm1', hasChat: true });
    expect(r.value).toMatchObject({ module_id: 'm1' });
    expect(r.warnings).toEqual([
      { path: '$.moduleId', rule: 'property_spelling', message: 'moduleId read as module_id' },
      { path: '$.hasChat', rule: 'unknown_property', message: 'hasChat is not part of ClientProbe; kept as extra' },
    ]);
    expect(r.unknown).toEqual({ hasChat: true });
    const upper = run({ ...base, HAS_CHATAPP: true });
    expect(upper.value.has_chatapp).toBe(true);
    expect(upper.warnings.map((w) => `${w.path} ${w.rule}`)).toEqual(['$.HAS_CHATAPP property_spelling']);
    const both = run({ ...base, module_id: 'a', moduleId: 'b' });
    expect(both.value.module_id).toBe('a');
    expect(both.unknown).toEqual({ moduleId: 'b' });
  });

  it('lifts a field sent inside a nested object (property_moved); the nested copy stays an extra there', () => {
    const r = run({ id: 'd1', urgent: true, score: 1, item: { id: 'i', patient_id: 'p9' } });
    expect(r.reasons).toEqual([]);
    expect(r.value).toMatchObject({ patient_id: 'p9', item: { id: 'i', __extra: { patient_id: 'p9' } } });
    expect(r.warnings.map((w) => `${w.path} ${w.rule}`)).toEqual(['$.item.patient_id property_moved', '$.item.patient_id unknown_property']);
  });

  it('treats "unset" values as absent with their rule', () => {
    const r = run({ ...base, birth_year: 0, at: '1970-01-01T03:00:00.000+03:00', details: '' });
    expect(r.reasons).toEqual([]);
    expect(r.value).toEqual({ ...base });
    expect(r.warnings).toEqual([
      { path: '$.birth_year', rule: 'unset_value', message: '0 stands for unset (0); treated as absent' },
      {
        path: '$.at',
        rule: 'epoch_zero_time',
        message: '"1970-01-01T03:00:00.000+03:00" stands for unset (the Unix epoch, 1970-01-01T00:00:00Z in any offset); treated as absent',
      },
      { path: '$.details', rule: 'empty_details', message: '"" stands for unset (an empty string); treated as absent' },
    ]);
    // The epoch in any offset; anything else is a value.
    expect(run({ ...base, at: '1969-12-31T21:00:00-03:00' }).warnings.map((w) => w.rule)).toEqual(['epoch_zero_time']);
    expect(run({ ...base, at: '1970-01-01T00:00:00.001Z', birth_year: 1990, details: 'x' })).toMatchObject({
      warnings: [],
      value: { at: '1970-01-01T00:00:00.001Z', birth_year: 1990, details: 'x' },
    });
    // Other values are still checked: 1 is out of range.
    expect(run({ ...base, birth_year: 1 }).reasons.map((e) => e.rule)).toEqual(['range']);
  });

  it('applies what an omission means (default_applied), computed from the object as sent, and checks it', () => {
    const r = run({ order_id: 'o1', patient_id: 'p1', score: 1 });
    expect(r.reasons).toEqual([]);
    expect(r.value).toMatchObject({ id: 'o1', urgent: false });
    expect(r.warnings).toEqual([
      { path: '$.id', rule: 'default_applied', message: 'id is absent; defaulted to "o1" (the order id)' },
      { path: '$.urgent', rule: 'default_applied', message: 'urgent is absent; defaulted to false (not urgent)' },
    ]);
    // Nothing to default from: still required.
    expect(run({ patient_id: 'p1', urgent: true, score: 1 }).reasons).toEqual([{ path: '$.id', rule: 'required', message: 'id is required' }]);
    expect(run({ order_id: 5, patient_id: 'p1', urgent: true, score: 1 }).reasons.map((e) => `${e.path} ${e.rule}`)).toContain('$.id type');
  });

  it('accepts a required field clients leave out (required_missing) from those clients only, but not a wrong one', () => {
    const { score: _s, ...noScore } = base;
    expect(run(noScore).reasons).toEqual([{ path: '$.score', rule: 'required', message: 'score is required' }]);
    const r = validateObject(toleratingOmissions(def, 'ios-cf'), noScore, '$');
    expect(r.reasons).toEqual([]);
    expect(r.value).not.toHaveProperty('score');
    expect(r.warnings).toEqual([
      { path: '$.score', rule: 'required_missing', message: 'score is required by the spec but client X sends it only with a result; accepted without it' },
    ]);
    expect(validateObject(toleratingOmissions(def, 'ios-cf'), { ...base, score: '1' }, '$').reasons.map((e) => e.rule)).toEqual(['type']);
  });

  it('keeps a number or boolean sent for a string as its text (type_coerced)', () => {
    expect(run({ ...base, value: 46 })).toMatchObject({
      value: { value: '46' },
      warnings: [{ path: '$.value', rule: 'type_coerced', message: '46 sent for a string; kept as the text "46"' }],
    });
    expect(run({ ...base, value: true }).value.value).toBe('true');
    expect(run({ ...base, value: { a: 1 } }).reasons.map((e) => e.rule)).toEqual(['type']);
  });
});
