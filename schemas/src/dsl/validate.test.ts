import { is, onlyWhen, onNested, oneOf, requiredWhen, ruleWhen } from './rules';
import { opt, req, t, type ObjectDef } from './types';
import { validateObject } from './validate';
import type { RuleName } from '../rules/registry';

const inner: ObjectDef = { name: 'Inner', fields: { a: opt(t.string), b: opt(t.string) } };
const def: ObjectDef = {
  name: 'Thing',
  fields: {
    kind: req(t.enum('kind', ['x', 'y'])),
    n: opt(t.int),
    inner: opt(t.object(inner)),
    list: opt(t.array(t.string), { aliases: ['lists'] }),
    tags: opt(t.map(t.string)),
  },
  rules: [
    requiredWhen('n', is('kind', 'x'), 'n_for_x' as RuleName, 'n is required for x'),
    onlyWhen('inner', is('kind', 'y'), 'inner_only_for_y' as RuleName, 'inner only for y'),
    ruleWhen(is('kind', 'y'), [onNested('inner', [oneOf(['a', 'b'], 'a_or_b' as RuleName, 'a or b')])]),
  ],
};

const problems = (input: unknown) => validateObject(def, input, '$').reasons.map((e) => `${e.path} ${e.rule}`);

describe('rule helpers', () => {
  it('requiredWhen, onlyWhen, ruleWhen + onNested + oneOf report at the right paths', () => {
    expect(problems({ kind: 'x' })).toEqual(['$.n n_for_x']);
    expect(problems({ kind: 'x', n: 1 })).toEqual([]);
    expect(problems({ kind: 'x', n: 1, inner: { a: 'q' } })).toEqual(['$.inner inner_only_for_y']);
    expect(problems({ kind: 'y', inner: {} })).toEqual(['$.inner a_or_b']);
    expect(problems({ kind: 'y', inner: { b: 'q' } })).toEqual([]);
    expect(problems({ kind: 'y' })).toEqual([]);
  });

  it('runs rules only when the types are right, so rules see typed values', () => {
    expect(problems({ kind: 'x', n: 'one' })).toEqual(['$.n type']);
  });
});

describe('validateObject keeps unusual keys', () => {
  it('keeps keys named like Object.prototype members as extras, with warnings', () => {
    const input = JSON.parse('{"kind":"y","constructor":"c","toString":1,"__proto__":{"p":1},"tags":{"__proto__":"t","hasOwnProperty":"h"}}');
    const r = validateObject(def, input, '$');
    expect(r.reasons).toEqual([]);
    expect(Object.keys(r.unknown)).toEqual(['constructor', 'toString', '__proto__']);
    expect(Object.getPrototypeOf(r.unknown)).toBe(Object.prototype);
    expect(r.unknown.__proto__).toEqual({ p: 1 });
    expect(Object.keys(r.value.tags as object)).toEqual(['__proto__', 'hasOwnProperty']);
    expect(r.warnings.map((w) => w.path)).toEqual(['$.constructor', '$.toString', '$.__proto__']);
  });

  it('reads a field through its alias', () => {
    expect(validateObject(def, { kind: 'y', lists: ['a'] }, '$').value).toEqual({ kind: 'y', list: ['a'] });
  });
});

describe('enums: what real clients send instead of a spec value', () => {
  const def = {
    name: 'Probe',
    fields: {
      type: req(t.enum('probe_type', ['appointment', 'medical_equipment', 'view'], { aliases: { appointments: 'appointment' }, extensions: ['other'] })),
      mood: opt(t.enum('probe_mood', ['happy'])),
    },
  };
  it.each([
    ['appointments', 'appointment', 'enum_alias'],
    ['other', 'other', 'enum_extension'],
    ['View', 'view', 'enum_spelling'],
    ['medicalEquipment', 'medical_equipment', 'enum_spelling'],
  ])('%s → %s with a %s warning', (sent, value, rule) => {
    const r = validateObject(def, { type: sent }, '$');
    expect([r.reasons, r.value, r.warnings.map((w) => [w.path, w.rule])]).toEqual([[], { type: value }, [['$.type', rule]]]);
  });

  it('an empty string stands for unset: an optional field is left out, a required one is missing', () => {
    const r = validateObject(def, { type: '', mood: '' }, '$');
    expect(r.value).toEqual({});
    expect(r.reasons.map((e) => [e.path, e.rule])).toEqual([['$.type', 'required']]);
    expect(r.warnings.map((w) => [w.path, w.rule])).toEqual([
      ['$.type', 'empty_enum'],
      ['$.mood', 'empty_enum'],
    ]);
  });

  it('anything else is still an enum error', () => {
    expect(validateObject(def, { type: 'appointmentz' }, '$').reasons.map((e) => e.rule)).toEqual(['enum']);
    expect(validateObject(def, { type: 'Other' }, '$').reasons.map((e) => e.rule)).toEqual(['enum']);
  });
});
