import type { RejectionReason } from '@evp/core';
import type { Condition } from '../definition';
import { LIMITS } from './rules';
import { validateDefinition, type ValidationContext } from './validate';

const saved: Record<string, Condition> = {
  buyers: { event: 'checkout' },
  loop_a: { segment: 'loop_b' },
  loop_b: { segment: 'loop_a' },
  via_me: { any: [{ event: 'page' }, { segment: 'me' }] },
  far: { segment: 'via_me' },
};
const ctx: ValidationContext = { definitionOf: (id) => saved[id], selfId: 'me' };

const reasons = (json: unknown, c: ValidationContext = ctx): RejectionReason[] => {
  const r = validateDefinition(json, c);
  return r.ok ? [] : r.reasons;
};
/** [path, rule] of every problem, in order. */
const refused = (json: unknown, c?: ValidationContext) => reasons(json, c).map((p) => [p.path, p.rule]);

describe('validateDefinition: accepted definitions', () => {
  const valid: [string, unknown][] = [
    ['an event with where, count, within', { event: 'cart', where: [{ prop: 'action', op: 'eq', value: 'add_item' }], count: { gte: 3 }, within: 'P30D' }],
    ['did not, absolute window', { event: 'page', count: { eq: 0 }, within: { from: '2024-01-01T00:00:00Z', to: '2024-02-01T00:00:00.5+03:00' } }],
    ['the newer name of nudge_response', { event: 'action_response', where: [{ prop: 'response', op: 'in', value: ['open', 'shown'] }] }],
    [
      'nested and array paths',
      {
        event: 'checkout',
        where: [
          { prop: 'items[].price', op: 'gt', value: 2 },
          { prop: 'items[].id', op: 'contains', value: 'x' },
        ],
      },
    ],
    ['exists on an object', { event: 'identify', where: [{ prop: 'blocked', op: 'exists' }] }],
    ['an epoch-ms time compared as a number', { event: 'appointment', where: [{ prop: 'appointment.time', op: 'gte', value: 1_700_000_000_000 }] }],
    ['an enum client alias and extension', { event: 'module_selection', where: [{ prop: 'type', op: 'in', value: ['appointments', 'core'] }] }],
    [
      'a catalog predicate via items[].id',
      { event: 'checkout', where: [{ catalog: 'drug', via: 'items[].id', where: [{ prop: 'atc_anatomical_group', op: 'eq', value: 'A' }] }] },
    ],
    [
      'a catalog predicate via a top-level id',
      { event: 'encounter', where: [{ catalog: 'site', via: 'site_id', where: [{ prop: 'service_list', op: 'contains', value: 'x' }] }] },
    ],
    [
      'each aggregate function',
      { all: ['sum', 'avg', 'min', 'max'].map((fn) => ({ aggregate: { event: 'checkout', prop: 'cart_price', fn }, op: 'gte', value: 1 })) },
    ],
    ['count_distinct of a string', { aggregate: { event: 'checkout', prop: 'items[].id', fn: 'count_distinct' }, op: 'in', value: [1, 2] }],
    ['a sequence', { sequence: [{ event: 'cart' }, { event: 'checkout', where: [{ prop: 'is_successful', op: 'eq', value: true }] }], within: 'PT2H' }],
    ['first_seen and last_seen', { any: [{ first_seen: { within: 'P7D' } }, { last_seen: { before: 'P1Y2M' } }, { last_seen: { within: 'PT1.5S' } }] }],
    [
      'profile: catalog field and client fact',
      {
        all: [
          { profile: 'gender', op: 'eq', value: 'undisclosed' },
          { profile: 'app_version_code', op: 'lt', value: 140 },
        ],
      },
    ],
    ['responded', { responded: { response: 'open', action_id: 9, inv_id: 0 }, within: 'P7D' }],
    ['a segment reference', { not: { segment: 'buyers' } }],
  ];

  it.each(valid)('%s', (_name, json) => {
    expect(reasons(json)).toEqual([]);
  });

  it('returns a copy of the definition', () => {
    const json = { event: 'page', where: [{ prop: 'path', op: 'eq', value: '/' }] };
    const r = validateDefinition(json, ctx);
    expect(r).toEqual({ ok: true, value: json });
    json.where[0]!.value = '/changed';
    expect(r.ok && r.value).toEqual({ event: 'page', where: [{ prop: 'path', op: 'eq', value: '/' }] });
  });
});

describe('validateDefinition: refusals, each at its path with its rule', () => {
  it('unknown event', () => {
    expect(reasons({ all: [{ event: 'page' }, { event: 'purchase' }] })).toEqual([
      { path: '$.all[1].event', rule: 'unknown_event', message: 'purchase is not an event of the data contract (docs/reference)' },
    ]);
  });

  it('unknown property, and a client spelling named as such', () => {
    expect(
      reasons({
        event: 'cart',
        where: [
          { prop: 'item.sku', op: 'exists' },
          { prop: 'cart_id', op: 'exists' },
        ],
      }),
    ).toEqual([
      { path: '$.where[0].prop', rule: 'unknown_property', message: 'item.sku is not a property of event cart' },
      {
        path: '$.where[1].prop',
        rule: 'unknown_property',
        message: "cart_id is not a property of event cart (cart_id is a client's spelling of id, which is what is stored)",
      },
    ]);
  });

  it('array paths need [] exactly where an array is crossed', () => {
    expect(
      refused({
        event: 'checkout',
        where: [
          { prop: 'items.id', op: 'exists' },
          { prop: 'currency[]', op: 'exists' },
          { prop: 'items[]', op: 'exists' },
        ],
      }),
    ).toEqual([
      ['$.where[0].prop', 'array_path'],
      ['$.where[1].prop', 'array_path'],
      ['$.where[2].op', 'op_type'],
    ]);
  });

  it('a numeric operator on a string, contains on an enum, an unknown operator', () => {
    expect(
      reasons({
        event: 'page',
        where: [
          { prop: 'path', op: 'gt', value: 'a' },
          { prop: 'duration', op: 'gt', value: '3' },
        ],
      }),
    ).toEqual([
      { path: '$.where[0].op', rule: 'op_type', message: 'gt does not apply: path is a string (operators for it: eq, neq, in, nin, contains, exists)' },
      { path: '$.where[1].value', rule: 'value_type', message: 'duration is a number: the value must be a number, got a string' },
    ]);
    expect(
      refused({
        event: 'cart',
        where: [
          { prop: 'action', op: 'contains', value: 'add' },
          { prop: 'id', op: 'like', value: 'x' },
        ],
      }),
    ).toEqual([
      ['$.where[0].op', 'op_type'],
      ['$.where[1].op', 'unknown_op'],
    ]);
  });

  it('bad enum values, in plain and in lists', () => {
    expect(reasons({ responded: { response: 'opened' } })).toEqual([
      { path: '$.responded.response', rule: 'enum_value', message: '"opened" is not a value of response: one of open, discard, block, shown, expired, error' },
    ]);
    expect(refused({ event: 'cart', where: [{ prop: 'action', op: 'nin', value: ['add_item', 'buy', 3] }] })).toEqual([
      ['$.where[0].value[1]', 'enum_value'],
      ['$.where[0].value[2]', 'value_type'],
    ]);
  });

  it('values against operators', () => {
    expect(
      refused({
        event: 'page',
        where: [
          { prop: 'path', op: 'exists', value: true },
          { prop: 'path', op: 'eq' },
          { prop: 'path', op: 'in', value: 'a' },
          { prop: 'path', op: 'in', value: [] },
          { prop: 'path', op: 'in', value: Array.from({ length: LIMITS.values + 1 }, (_, i) => String(i)) },
          { prop: 'duration', op: 'eq', value: Number.NaN },
        ],
      }),
    ).toEqual([
      ['$.where[0].value', 'exists_value'],
      ['$.where[1].value', 'required'],
      ['$.where[2].value', 'value_type'],
      ['$.where[3].value', 'min_items'],
      ['$.where[4].value', 'max_items'],
      ['$.where[5].value', 'value_type'],
    ]);
  });

  it('bad durations and timestamps', () => {
    expect(reasons({ event: 'page', within: 'P1.5D' })).toEqual([
      {
        path: '$.within',
        rule: 'duration',
        message: '"P1.5D" is not an ISO 8601 duration such as P30D, PT2H or P1M (whole numbers; seconds may have up to 3 decimals)',
      },
    ]);
    expect(
      refused({
        any: [
          { event: 'page', within: '30 days' },
          { event: 'page', within: 'PT0S' },
          { event: 'page', within: '-P1D' },
          { event: 'page', within: 'P101Y' },
          { event: 'page', within: 30 },
          { last_seen: { before: 'P' } },
          { event: 'page', within: { from: '2024-01-01', to: '2024-02-30T00:00:00Z' } },
          { event: 'page', within: { from: '2024-02-01T00:00:00Z', to: '2024-02-01T00:00:00Z', at: 1 } },
          { event: 'page', within: { from: '2024-01-01T00:00:00.1234Z' } },
        ],
      }),
    ).toEqual([
      ['$.any[0].within', 'duration'],
      ['$.any[1].within', 'duration'],
      ['$.any[2].within', 'duration'],
      ['$.any[3].within', 'duration'],
      ['$.any[4].within', 'type'],
      ['$.any[5].last_seen.before', 'duration'],
      ['$.any[6].within.from', 'timestamp'],
      ['$.any[6].within.to', 'timestamp'],
      ['$.any[7].within.at', 'unknown_key'],
      ['$.any[7].within.to', 'window_order'],
      ['$.any[8].within.from', 'timestamp'],
      ['$.any[8].within.to', 'required'],
    ]);
  });

  it('counts', () => {
    expect(
      refused({
        any: [
          { event: 'page', count: { gte: 1, lte: 3 } },
          { event: 'page', count: { ge: 1 } },
          { event: 'page', count: { eq: -1 } },
          { event: 'page', count: { eq: 1.5 } },
          { event: 'page', count: 3 },
        ],
      }),
    ).toEqual([
      ['$.any[0].count', 'count'],
      ['$.any[1].count.ge', 'count'],
      ['$.any[2].count.eq', 'count'],
      ['$.any[3].count.eq', 'count'],
      ['$.any[4].count', 'count'],
    ]);
  });

  it('shapes: kinds, keys, types, required keys', () => {
    expect(reasons({ event: 'page', profile: 'os' })).toEqual([
      {
        path: '$',
        rule: 'condition_kind',
        message:
          'a condition is exactly one of all, any, not, event, aggregate, sequence, first_seen, last_seen, profile, responded, segment; this one has the keys of several: event, profile',
      },
    ]);
    expect(
      refused({
        all: [
          { op: 'eq' },
          'page',
          { event: 'page', op: 'eq' },
          { any: [] },
          { any: {} },
          { profile: 'os', op: 'eq', value: 'x', where: [] },
          { event: '' },
          { event: 'page', where: {} },
          { event: 'page', where: [3] },
          { event: 'page', where: [{ op: 'exists' }] },
        ],
      }),
    ).toEqual([
      ['$.all[0]', 'condition_kind'],
      ['$.all[1]', 'type'],
      ['$.all[2].op', 'unknown_key'],
      ['$.all[3].any', 'min_items'],
      ['$.all[4].any', 'type'],
      ['$.all[5].where', 'unknown_key'],
      ['$.all[6].event', 'type'],
      ['$.all[7].where', 'type'],
      ['$.all[8].where[0]', 'type'],
      ['$.all[9].where[0].prop', 'required'],
    ]);
  });

  it('catalog predicates', () => {
    expect(
      refused({
        event: 'checkout',
        where: [
          { catalog: 'medicine', via: 'items[].id', where: [] },
          { catalog: 'drug', via: 'items', where: [] },
          { catalog: 'drug', via: 'cart_price', where: [] },
          { catalog: 'drug', via: 'items[].id', where: [{ prop: 'colour', op: 'exists' }] },
          { catalog: 'drug', via: 'items[].id', where: [{ catalog: 'site', via: 'id', where: [] }] },
          { catalog: 'drug', via: 'items[].id' },
          { catalog: 'drug', via: 'items[].id', where: [], op: 'eq' },
        ],
      }),
    ).toEqual([
      ['$.where[0].catalog', 'unknown_catalog'],
      ['$.where[1].via', 'via_type'],
      ['$.where[2].via', 'via_type'],
      ['$.where[3].where[0].prop', 'unknown_property'],
      ['$.where[4].where[0]', 'nested_catalog'],
      ['$.where[5].where', 'required'],
      ['$.where[6].op', 'unknown_key'],
    ]);
  });

  it('aggregates', () => {
    expect(
      refused({
        any: [
          { aggregate: { event: 'checkout', prop: 'currency', fn: 'sum' }, op: 'gt', value: 1 },
          { aggregate: { event: 'checkout', prop: 'items', fn: 'count_distinct' }, op: 'gt', value: 1 },
          { aggregate: { event: 'checkout', prop: 'cart_price', fn: 'median' }, op: 'gt', value: 1 },
          { aggregate: { event: 'checkout', prop: 'cart_price', fn: 'sum' }, op: 'exists' },
          { aggregate: { event: 'checkout', prop: 'cart_price', fn: 'sum' }, op: 'gt', value: 'a lot' },
          { aggregate: { event: 'checkout', fn: 'sum' }, op: 'gt', value: 1 },
        ],
      }),
    ).toEqual([
      ['$.any[0].aggregate.prop', 'aggregate_type'],
      ['$.any[1].aggregate.prop', 'aggregate_type'],
      ['$.any[2].aggregate.fn', 'unknown_fn'],
      ['$.any[3].op', 'op_type'],
      ['$.any[4].value', 'value_type'],
      ['$.any[5].aggregate.prop', 'required'],
    ]);
  });

  it('sequences, first_seen, last_seen, profile, responded', () => {
    expect(
      refused({
        any: [
          { sequence: [{ event: 'cart' }] },
          {
            sequence: [
              { event: 'cart', within: 'P1D' },
              { event: 'checkout', count: { gte: 1 } },
            ],
          },
          { first_seen: {} },
          { last_seen: { within: 'P1D', before: 'P2D' } },
          { last_seen: {} },
          { profile: 'favourite_colour', op: 'exists' },
          { profile: 'id', op: 'exists' },
          { profile: 'os', op: 'gt', value: 'a' },
          { responded: { action_id: '9', inv_id: 2_147_483_648 } },
          { responded: { tag: '' } },
        ],
      }),
    ).toEqual([
      ['$.any[0].sequence', 'min_items'],
      ['$.any[1].sequence[0].within', 'unknown_key'],
      ['$.any[1].sequence[1].count', 'unknown_key'],
      ['$.any[2].first_seen.within', 'required'],
      ['$.any[3].last_seen.before', 'unknown_key'],
      ['$.any[4].last_seen', 'required'],
      ['$.any[5].profile', 'unknown_field'],
      ['$.any[6].profile', 'unknown_field'],
      ['$.any[7].op', 'op_type'],
      ['$.any[8].responded.action_id', 'id_value'],
      ['$.any[8].responded.inv_id', 'id_value'],
      ['$.any[9].responded.tag', 'type'],
    ]);
  });

  it('segment references: unknown ids and cycles, with the cycle in order', () => {
    expect(reasons({ any: [{ segment: 'me' }, { segment: 'ghost' }, { segment: 'far' }, { segment: 'loop_a' }] })).toEqual([
      { path: '$.any[0].segment', rule: 'segment_cycle', message: 'segment cycle: me → me (a segment cannot refer to itself)' },
      { path: '$.any[1].segment', rule: 'unknown_segment', message: 'no segment ghost in this app' },
      { path: '$.any[2].segment', rule: 'segment_cycle', message: 'segment cycle: me → far → via_me → me' },
      { path: '$.any[3].segment', rule: 'segment_cycle', message: 'segment cycle: loop_a → loop_b → loop_a' },
    ]);
    // On create (no id yet) nothing refers to the new segment: far is fine.
    expect(reasons({ segment: 'far' }, { definitionOf: ctx.definitionOf })).toEqual([]);
  });

  it('limits: depth, leaves, leaves with references inlined, predicates, steps', () => {
    let deep: unknown = { event: 'page' };
    for (let i = 0; i < LIMITS.depth; i++) deep = { not: deep };
    expect(refused(deep)).toEqual([[`$${'.not'.repeat(LIMITS.depth)}`, 'max_depth']]);
    const many = (n: number) => ({ any: Array.from({ length: n }, () => ({ event: 'page' })) });
    expect(refused(many(LIMITS.conditions))).toEqual([]);
    expect(refused(many(LIMITS.conditions + 1))).toEqual([['$', 'max_conditions']]);
    const big = { big: many(LIMITS.conditions) as Condition };
    const refs = { any: Array.from({ length: 5 }, () => ({ segment: 'big' })) };
    expect(reasons(refs, { definitionOf: (id) => big[id as 'big'] })).toEqual([
      {
        path: '$',
        rule: 'max_conditions',
        message: `with referenced segments inlined the definition has 320 leaf conditions; the limit is ${LIMITS.inlinedConditions}`,
      },
    ]);
    const preds = Array.from({ length: LIMITS.predicates + 1 }, () => ({ prop: 'path', op: 'exists' }));
    expect(refused({ event: 'page', where: preds })).toEqual([['$.where', 'max_items']]);
    const steps = Array.from({ length: LIMITS.steps + 1 }, () => ({ event: 'page' }));
    expect(refused({ sequence: steps })).toEqual([['$.sequence', 'max_items']]);
  });

  it('reports every problem, not only the first', () => {
    expect(refused({ all: [{ event: 'nope' }, { profile: 'os', op: 'gt', value: 1 }, { event: 'page', within: 'P' }] })).toEqual([
      ['$.all[0].event', 'unknown_event'],
      ['$.all[1].op', 'op_type'],
      ['$.all[2].within', 'duration'],
    ]);
  });
});
