import { ACTION_LIMITS, ACTION_REQUEST_FIELDS, NEW_ACTION_FIELDS, REQUESTED_ACTION_FIELDS, type RecordField } from '@evp/schemas';
import { fieldsSchema } from './fields-schema';
import { parseActionRequestMessage } from './validation';

const names = (fields: readonly RecordField[]) => fields.map((f) => f.name);

describe('fieldsSchema: the action request readers come from the field tables', () => {
  it('reads exactly the fields of the table: a field added to the table is read, an unknown one refused', () => {
    const table = [
      { name: 'a', kind: 'string', nonEmpty: true, limits: { maxLength: 3 } },
      { name: 'n', kind: 'int', optional: true, limits: { min: 1, max: 9 } },
      { name: 'l', kind: 'stringList', avroDefault: [], limits: { maxItems: 2, nonEmptyItems: true } },
      { name: 'r', kind: 'record', optional: true, avroRecord: 'R', fields: [{ name: 'x', kind: 'boolean' }] },
    ] as const satisfies readonly RecordField[];
    const s = fieldsSchema<{ a: string; n?: number; l: string[]; r?: { x: boolean } }>(table);
    expect(s.parse({ a: 'abc' })).toEqual({ a: 'abc', l: [] });
    expect(s.parse({ a: 'x', n: 9, l: ['p'], r: { x: true } })).toEqual({ a: 'x', n: 9, l: ['p'], r: { x: true } });
    const bad = s.safeParse({ a: '', n: 10, l: ['', 'b', 'c'], r: { x: 1, y: 2 }, z: 0 });
    expect(bad.success ? [] : bad.error.issues.map((i) => [i.path.join('.'), i.code]).sort()).toEqual(
      [
        ['', 'unrecognized_keys'],
        ['a', 'too_small'],
        ['n', 'too_big'],
        ['l', 'too_big'],
        ['l.0', 'too_small'],
        ['r', 'unrecognized_keys'],
        ['r.x', 'invalid_type'],
      ].sort(),
    );
  });

  it('a stringMap: non-empty keys of at most keyMaxLength, values of at most maxLength, between minItems and maxItems entries', () => {
    const table = [
      { name: 'm', kind: 'stringMap', limits: { minItems: 1, maxItems: 2, keyMaxLength: 2, maxLength: 3, nonEmptyItems: true } },
    ] as const satisfies readonly RecordField[];
    const s = fieldsSchema<{ m: Record<string, string> }>(table);
    expect(s.parse({ m: { ab: 'xyz' } })).toEqual({ m: { ab: 'xyz' } });
    const issues = (m: Record<string, string>) => {
      const r = s.safeParse({ m });
      return r.success ? [] : r.error.issues.map((i) => [i.path.join('.'), i.message]);
    };
    expect(issues({})).toEqual([['m', 'at least 1 entry']]);
    expect(issues({ a: '1', b: '2', c: '3' })).toEqual([['m', 'at most 2 entries']]);
    expect(issues({ '': 'v', abc: 'long' })).toEqual([
      ['m.', 'names must not be empty'],
      ['m.abc', 'String must contain at most 2 character(s)'],
      ['m.abc', 'String must contain at most 3 character(s)'],
    ]);
  });

  it('an actions.requested action is a created action with both ids required and caps allowed', () => {
    expect(names(REQUESTED_ACTION_FIELDS)).toEqual([
      ...names(NEW_ACTION_FIELDS).filter((n) => n !== 'inv_id' && n !== 'action_id'),
      'inv_id',
      'action_id',
      'caps',
    ]);
    expect(names(ACTION_REQUEST_FIELDS)).toEqual(['app_id', 'source', 'actions']);
  });

  it('reports every problem of a message at once, each at its path, with the limits of the table', () => {
    const r = parseActionRequestMessage({
      app_id: 'bad app',
      source: 'x'.repeat(ACTION_LIMITS.sourceLength + 1),
      actions: [
        {
          user_id: '*',
          type: 'custom',
          render_method: 'push_notification',
          delivery_mode: 'one-off',
          content: { title: 't', body: 'b' },
          tags: ['x'.repeat(ACTION_LIMITS.tagLength + 1)],
          expired_at: 'tomorrow',
          inv_id: -1,
          action_id: 1,
          caps: { campaign: { key: 'c', max: 0, within_ms: 1 } },
        },
      ],
    });
    expect(r.ok ? [] : r.reasons.map((i) => [i.path, i.rule])).toEqual([
      ['$.app_id', 'format'],
      ['$.source', 'max'],
      ['$.actions[0].user_id', 'invalid'],
      ['$.actions[0].tags[0]', 'max'],
      ['$.actions[0].expired_at', 'invalid'],
      ['$.actions[0].inv_id', 'min'],
      ['$.actions[0].caps.campaign.max', 'min'],
      ['$.actions[0].render_method', 'type_render_method'],
    ]);
  });
});
