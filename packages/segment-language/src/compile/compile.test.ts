import { formatDateTime64 } from '@evp/clickhouse';
import type { Analytics } from '@evp/core';
import { useMigratedChdb } from '@evp/testkit';
import { DateTime, Duration } from 'luxon';
import type { CompiledSegment } from '../compiled';
import type { Condition } from '../definition';
import { validateDefinition } from '../language/validate';
import { compileSegment } from './compile';
import { Params } from './params';
import { backFromNow } from './windows';

const segments: Record<string, Condition> = {
  buyers: { event: 'checkout', within: 'P30D' },
  kenyan_buyers: { all: [{ segment: 'buyers' }, { profile: 'country', op: 'eq', value: 'Kenya' }] },
};
const ctx = { definitionOf: (id: string) => segments[id] };

function compile(json: unknown): CompiledSegment {
  const v = validateDefinition(json, ctx);
  if (!v.ok) throw new Error(JSON.stringify(v.reasons));
  return compileSegment(v.value, ctx);
}

const deps = (json: unknown) => {
  const { events, catalogs, timeDriven, segments: ids } = compile(json);
  return { events, catalogs, timeDriven, segments: ids };
};

describe('compileSegment: what a segment depends on', () => {
  it.each<[string, unknown, ReturnType<typeof deps>]>([
    ['an event, all history', { event: 'cart' }, { events: ['cart'], catalogs: [], timeDriven: false, segments: [] }],
    ['an alias, a relative window', { event: 'action_response', within: 'P7D' }, { events: ['nudge_response'], catalogs: [], timeDriven: true, segments: [] }],
    [
      'an absolute window never moves',
      { event: 'page', within: { from: '2024-01-01T00:00:00Z', to: '2024-02-01T00:00:00Z' } },
      { events: ['page'], catalogs: [], timeDriven: false, segments: [] },
    ],
    [
      'names of every leaf, sorted; catalog kinds of predicates',
      { all: [{ sequence: [{ event: 'page' }, { event: 'cart' }] }, { event: 'checkout', where: [{ catalog: 'drug', via: 'items[].id', where: [] }] }] },
      { events: ['cart', 'checkout', 'page'], catalogs: ['drug'], timeDriven: false, segments: [] },
    ],
    ['responded', { responded: { response: 'open' } }, { events: ['nudge_response'], catalogs: [], timeDriven: false, segments: [] }],
    [
      'an aggregate over a window',
      { aggregate: { event: 'checkout', prop: 'cart_price', fn: 'sum' }, op: 'gt', value: 10, within: 'P1M' },
      { events: ['checkout'], catalogs: [], timeDriven: true, segments: [] },
    ],
    ['last_seen before: any event, and time', { last_seen: { before: 'P30D' } }, { events: ['*'], catalogs: [], timeDriven: true, segments: [] }],
    [
      'first_seen in an absolute window',
      { first_seen: { within: { from: '2024-01-01T00:00:00Z', to: '2024-02-01T00:00:00Z' } } },
      { events: ['*'], catalogs: [], timeDriven: false, segments: [] },
    ],
    ['a client fact: any event', { profile: 'os', op: 'eq', value: 'ios' }, { events: ['*'], catalogs: [], timeDriven: false, segments: [] }],
    [
      'a user catalog field: users without events may be members',
      { profile: 'country', op: 'eq', value: 'Kenya' },
      { events: ['*'], catalogs: ['user'], timeDriven: false, segments: [] },
    ],
    [
      'a catalog field behind an event condition: only users with the event',
      { all: [{ event: 'cart' }, { profile: 'country', op: 'eq', value: 'Kenya' }] },
      { events: ['cart'], catalogs: ['user'], timeDriven: false, segments: [] },
    ],
    ['did not: any event, any user', { event: 'cart', count: { eq: 0 }, within: 'P7D' }, { events: ['*'], catalogs: ['user'], timeDriven: true, segments: [] }],
    ['not', { not: { event: 'cart' } }, { events: ['*'], catalogs: ['user'], timeDriven: false, segments: [] }],
    [
      'references, inlined transitively',
      { segment: 'kenyan_buyers' },
      { events: ['checkout'], catalogs: ['user'], timeDriven: true, segments: ['buyers', 'kenyan_buyers'] },
    ],
  ])('%s', (_name, json, expected) => {
    expect(deps(json)).toEqual(expected);
  });
});

describe('compileSegment: the query', () => {
  it('holds every literal as a parameter, never as text', () => {
    const c = compile({
      all: [
        { event: 'checkout', where: [{ prop: 'currency', op: 'in', value: ['KES', 'UGX'] }], count: { gte: 2 }, within: 'P30D' },
        { profile: 'country', op: 'eq', value: "Côte d'Ivoire" },
      ],
    });
    expect(c.params).toEqual({ p0: 'checkout', p1: ['KES', 'UGX'], p2: 2_592_000_000, p3: 2, p4: "Côte d'Ivoire", p5: ['checkout'] });
    for (const literal of ['checkout', 'KES', 'Ivoire', '2592000000']) expect(c.sql).not.toContain(literal);
  });

  it("reads only the definition's events when users without them cannot be members, every user otherwise", () => {
    expect(compile({ event: 'cart' }).sql).toContain('AND name IN {p2:Array(String)}');
    expect(compile({ event: 'cart' }).sql).not.toContain('JOIN');
    expect(compile({ all: [{ event: 'cart' }, { profile: 'country', op: 'exists' }] }).sql).toContain('LEFT JOIN');
    // Every user with any event (a pass without FINAL), their cart events (with FINAL), and the user catalog.
    const every = compile({ not: { event: 'cart' } }).sql;
    expect(every).toContain(
      'FROM events\n    PREWHERE app_id = {app_id:String} AND (NOT {scoped:UInt8} OR has({users:Array(String)}, user_id))\n    GROUP BY user_id\n) AS a\nLEFT JOIN',
    );
    expect(every).toContain(
      'FROM events FINAL\n    PREWHERE app_id = {app_id:String} AND (NOT {scoped:UInt8} OR has({users:Array(String)}, user_id)) AND name IN {p2:Array(String)}\n',
    );
    expect(every).toContain(') AS e USING (user_id)\nFULL OUTER JOIN');
  });

  it('reads only the span of the windows when nothing outside it can matter', () => {
    const back = (p: string) => `subtractMilliseconds({now:DateTime64(3, 'UTC')}, {${p}:UInt64})`;
    const since = (p: string) => `time >= ${back(p)}`;
    // Event leaves: the earliest start to the latest end.
    const two = compile({
      all: [
        { event: 'cart', within: 'P7D' },
        { event: 'page', within: { from: '2024-01-01T00:00:00Z', to: '2024-02-01T00:00:00Z' } },
      ],
    });
    expect(two.sql).toContain(
      `AND time >= least(${back('p1')}, {p4:DateTime64(3, 'UTC')}) AND time <= greatest({now:DateTime64(3, 'UTC')}, {p5:DateTime64(3, 'UTC')})\n`,
    );
    // One leaf over all history: every event of the name.
    expect(compile({ all: [{ event: 'cart', within: 'P7D' }, { event: 'page' }] }).sql).toContain('AND name IN {p4:Array(String)}\n');
    // Last seen before needs every event of a user, unless a member must have an event in the windows.
    const lapsed = compile({ last_seen: { before: 'P30D' } }).sql;
    expect(lapsed).toContain('FROM events\n    PREWHERE app_id = {app_id:String} AND (NOT {scoped:UInt8} OR has({users:Array(String)}, user_id))\n');
    const recentBuyer = compile({ all: [{ event: 'checkout', within: 'P90D' }, { not: { last_seen: { before: 'P7D' } } }] }).sql;
    expect(recentBuyer).toContain(
      `FROM events\n    PREWHERE app_id = {app_id:String} AND (NOT {scoped:UInt8} OR has({users:Array(String)}, user_id)) AND ${since('p1')}\n`,
    );
    // First seen needs the first event, however old; a user without recent events may be a member of an `any`.
    expect(compile({ all: [{ event: 'checkout', within: 'P90D' }, { first_seen: { within: 'P30D' } }] }).sql).toContain(
      'FROM events\n    PREWHERE app_id = {app_id:String} AND (NOT {scoped:UInt8} OR has({users:Array(String)}, user_id))\n',
    );
    expect(compile({ any: [{ event: 'checkout', within: 'P90D' }, { last_seen: { before: 'P7D' } }] }).sql).toContain(
      'FROM events\n    PREWHERE app_id = {app_id:String} AND (NOT {scoped:UInt8} OR has({users:Array(String)}, user_id))\n',
    );
    // Last seen within a window is a window too.
    expect(compile({ last_seen: { within: 'P7D' } }).sql).toContain(`AND ${since('p0')}\n`);
  });

  it('is exactly this SQL for a small definition (the docs show it)', () => {
    const c = compile({
      all: [
        { event: 'checkout', where: [{ catalog: 'drug', via: 'items[].id', where: [{ prop: 'atc_anatomical_group', op: 'eq', value: 'A' }] }], within: 'P30D' },
        { not: { profile: 'country', op: 'eq', value: 'Kenya' } },
      ],
    });
    expect(c.sql).toBe(`SELECT user_id
FROM
(
    SELECT
        user_id,
        countIf(name = {p0:String} AND arrayExists(v -> v IN (SELECT id FROM catalog_drug FINAL PREWHERE app_id = {app_id:String} WHERE ifNull(record.atc_anatomical_group.:String = {p1:String}, 0)), props.items[].id.:String) AND time >= subtractMilliseconds({now:DateTime64(3, 'UTC')}, {p2:UInt64}) AND time <= {now:DateTime64(3, 'UTC')}) AS e0
    FROM events FINAL
    PREWHERE app_id = {app_id:String} AND (NOT {scoped:UInt8} OR has({users:Array(String)}, user_id)) AND name IN {p5:Array(String)} AND time >= subtractMilliseconds({now:DateTime64(3, 'UTC')}, {p2:UInt64}) AND time <= {now:DateTime64(3, 'UTC')}
    GROUP BY user_id
) AS e
LEFT JOIN
(
    SELECT
        id AS user_id,
        record.country.:String AS u0
    FROM catalog_user FINAL
    PREWHERE app_id = {app_id:String} AND (NOT {scoped:UInt8} OR has({users:Array(String)}, id))
) AS u USING (user_id)
WHERE ((e0 >= {p3:UInt64}) AND NOT (ifNull(u0 = {p4:String}, 0)))
SETTINGS join_use_nulls = 0`);
    expect(c.params).toEqual({ p0: 'checkout', p1: 'A', p2: 2_592_000_000, p3: 1, p4: 'Kenya', p5: ['checkout'] });
  });

  it('throws on a definition that was not validated (an unknown reference)', () => {
    expect(() => compileSegment({ segment: 'ghost' }, ctx)).toThrow('no segment ghost to inline');
  });
});

describe('relative windows in SQL', () => {
  const chdb = useMigratedChdb('segwindows');
  let analytics: Analytics;
  beforeAll(() => {
    analytics = chdb.analytics;
  });

  const nows = ['2024-03-31T10:00:00.000Z', '2024-02-29T23:59:59.999Z', '2023-12-31T00:00:00.000Z', '2024-05-31T12:30:00.250Z'];
  const durations = ['P1M', 'P1Y', 'P1M2DT3H', 'PT1.5S', 'P2W', 'P13M', 'P1Y1M1W1DT1H1M1.001S', 'PT36H'];

  it('start at the instant luxon computes (DateTime.minus in UTC: months first, month ends clamped)', async () => {
    for (const now of nows) {
      for (const d of durations) {
        const params = new Params();
        const sql = `SELECT toString(${backFromNow(d, params)}) AS start`;
        const [row] = await analytics.query<{ start: string }>(sql, { ...params.values, now: now.replace('T', ' ').replace('Z', '') });
        const expected = DateTime.fromISO(now, { zone: 'utc' }).minus(Duration.fromISO(d)).toMillis();
        expect({ now, d, start: row?.start }).toEqual({ now, d, start: formatDateTime64(expected) });
      }
    }
  });
});
