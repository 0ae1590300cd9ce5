import type { Analytics } from '@evp/core';
import { useMigratedChdb } from '@evp/testkit';
import type { Condition } from '@evp/segment-language';
import { type CatalogSeed, type Definitions, ev, membersOf, seed } from '../testing';

// Exact membership per condition kind, on chdb with every migration: the compiled query run as the
// engine runs it. Each describe block has an app of its own.
const chdb = useMigratedChdb('segmembers');
let analytics: Analytics;

const NOW = Date.UTC(2024, 2, 31, 10, 0, 0);
const DAY = 86_400_000;
const ago = (days: number, ms = 0) => NOW - days * DAY - ms;

const cart = (app: string, user: string, time: number, action = 'add_item', price = 9.5) =>
  ev(app, user, 'cart', time, { id: `c-${user}`, action, cart_price: price, currency: 'KES', item: { id: 'i1' } });
const checkout = (app: string, user: string, time: number, items: { id: string; price?: number }[], price = 10) =>
  ev(app, user, 'checkout', time, { id: `o-${user}-${time}`, cart_id: `c-${user}`, cart_price: price, currency: 'KES', items, is_successful: true });
const page = (app: string, user: string, time: number, extra = {}) =>
  ev(app, user, 'page', time, { path: '/home', title: 'Home', duration: 1.5, render_time: 10 }, extra);
const nudge = (app: string, user: string, time: number, ref: string, response: string) =>
  ev(app, user, 'nudge_response', time, { ref, time: '2024-03-01T08:00:00Z', response }, { sent_name: 'action_response' });
const user = (app: string, id: string, record: Record<string, unknown>, at?: number): CatalogSeed => ({
  app,
  kind: 'user',
  id,
  record: { timezone: '+03:00', ...record },
  ...(at === undefined ? {} : { at }),
});

const members = (definition: unknown, app: string, opts: { users?: string[]; segments?: Definitions; now?: number } = {}) =>
  membersOf(analytics, definition, app, opts.now ?? NOW, opts);

beforeAll(async () => {
  analytics = chdb.analytics;
  const evApp = [
    // u1: three add_item within 7 days; u2: two within, one older; u3: removes only; u4: all older.
    cart('ev', 'u1', ago(1)),
    cart('ev', 'u1', ago(2)),
    cart('ev', 'u1', ago(3)),
    cart('ev', 'u2', ago(1)),
    cart('ev', 'u2', ago(2)),
    cart('ev', 'u2', ago(9)),
    cart('ev', 'u3', ago(1), 'remove_item'),
    cart('ev', 'u3', ago(2), 'remove_item'),
    cart('ev', 'u3', ago(3), 'remove_item'),
    cart('ev', 'u4', ago(8)),
    cart('ev', 'u4', ago(9)),
    cart('ev', 'u4', ago(10)),
    page('ev', 'u2', ago(1)),
  ];
  await seed(analytics, evApp, [user('ev', 'u5', { country: 'Kenya' })]);
  // Every event of u1 delivered twice (a re-delivery: same event ids): counts stay exact.
  await seed(
    analytics,
    evApp.filter((e) => e.user_id === 'u1'),
  );
});

describe('event conditions', () => {
  it('performed with where, count and within', async () => {
    const def = { event: 'cart', where: [{ prop: 'action', op: 'eq', value: 'add_item' }], count: { gte: 3 }, within: 'P7D' };
    expect(await members(def, 'ev')).toEqual(['u1']);
  });

  it('counts each event once although it was stored twice', async () => {
    expect(await members({ event: 'cart', count: { eq: 3 } }, 'ev')).toEqual(['u1', 'u2', 'u3', 'u4']);
    expect(await members({ event: 'cart', count: { eq: 6 } }, 'ev')).toEqual([]);
  });

  it('count defaults to at least once; lte, lt and gt', async () => {
    expect(await members({ event: 'page' }, 'ev')).toEqual(['u2']);
    expect(await members({ event: 'cart', within: 'P7D', count: { lte: 2 } }, 'ev')).toEqual(['u2', 'u4', 'u5']);
    expect(await members({ event: 'cart', within: 'P7D', count: { lt: 3 } }, 'ev')).toEqual(['u2', 'u4', 'u5']);
    expect(await members({ event: 'cart', within: 'P7D', count: { gt: 2 } }, 'ev')).toEqual(['u1', 'u3']);
  });

  it('count eq 0 is "did not": users with other events and users known only from the user catalog', async () => {
    const def = { event: 'cart', where: [{ prop: 'action', op: 'eq', value: 'add_item' }], count: { eq: 0 }, within: 'P7D' };
    expect(await members(def, 'ev')).toEqual(['u3', 'u4', 'u5']);
  });

  it('all, any and not combine', async () => {
    const added = { event: 'cart', where: [{ prop: 'action', op: 'eq', value: 'add_item' }], within: 'P7D' };
    expect(await members({ all: [added, { event: 'page' }] }, 'ev')).toEqual(['u2']);
    expect(await members({ any: [{ event: 'page' }, { event: 'cart', count: { gte: 3 }, within: 'P7D' }] }, 'ev')).toEqual(['u1', 'u2', 'u3']);
    expect(await members({ not: added }, 'ev')).toEqual(['u3', 'u4', 'u5']);
    expect(await members({ all: [{ not: { event: 'page' } }, { any: [added, { profile: 'country', op: 'eq', value: 'Kenya' }] }] }, 'ev')).toEqual([
      'u1',
      'u5',
    ]);
    expect(await members({ not: { not: { event: 'page' } } }, 'ev')).toEqual(['u2']);
  });
});

describe('predicates by type', () => {
  beforeAll(async () => {
    await seed(analytics, [
      checkout('pred', 'ok', ago(1), [{ id: 'a', price: 3 }, { id: 'b' }], 12.5),
      {
        ...checkout('pred', 'failed', ago(1), [{ id: 'b', price: 30 }], 40),
        props: { id: 'o', cart_id: 'c', cart_price: 40, currency: 'UGX', items: [{ id: 'b', price: 30 }], is_successful: false },
      },
      ev('pred', 'module', 'module_selection', ago(1), { type: 'appointment' }),
      ev('pred', 'blocked', 'identify', ago(1), { action: 'blocked', blocked: { reason: 'spam' } }),
      ev('pred', 'login', 'identify', ago(1), { action: 'login' }),
      ev('pred', 'visit', 'appointment', ago(1), {
        patient_id: 'p',
        site_id: 's',
        action: 'add',
        appointment: { id: 'a1', time: Date.UTC(2024, 3, 2), type_list: ['assessment', 'review'] },
      }),
    ]);
  });

  const where = (event: string, ...preds: unknown[]) => ({ event, where: preds });

  it('numbers (integers and floats alike), booleans, strings', async () => {
    expect(await members(where('checkout', { prop: 'cart_price', op: 'gt', value: 12 }), 'pred')).toEqual(['failed', 'ok']);
    expect(await members(where('checkout', { prop: 'cart_price', op: 'in', value: [12.5, 7] }), 'pred')).toEqual(['ok']);
    expect(await members(where('checkout', { prop: 'cart_price', op: 'eq', value: 40 }), 'pred')).toEqual(['failed']);
    expect(await members(where('checkout', { prop: 'is_successful', op: 'eq', value: false }), 'pred')).toEqual(['failed']);
    expect(await members(where('checkout', { prop: 'is_successful', op: 'neq', value: false }), 'pred')).toEqual(['ok']);
    expect(await members(where('checkout', { prop: 'currency', op: 'contains', value: 'GX' }), 'pred')).toEqual(['failed']);
    expect(await members(where('checkout', { prop: 'currency', op: 'nin', value: ['KES'] }), 'pred')).toEqual(['failed']);
  });

  it('through []: one element matches; neq and nin: none does', async () => {
    expect(await members(where('checkout', { prop: 'items[].id', op: 'eq', value: 'b' }), 'pred')).toEqual(['failed', 'ok']);
    expect(await members(where('checkout', { prop: 'items[].id', op: 'neq', value: 'a' }), 'pred')).toEqual(['failed']);
    expect(await members(where('checkout', { prop: 'items[].price', op: 'gte', value: 30 }), 'pred')).toEqual(['failed']);
    expect(await members(where('checkout', { prop: 'items[].price', op: 'exists' }), 'pred')).toEqual(['failed', 'ok']);
    expect(await members(where('appointment', { prop: 'appointment.type_list[]', op: 'eq', value: 'review' }), 'pred')).toEqual(['visit']);
  });

  it('arrays, objects, enum aliases and epoch-ms times', async () => {
    expect(await members(where('appointment', { prop: 'appointment.type_list', op: 'contains', value: 'assessment' }), 'pred')).toEqual(['visit']);
    expect(await members(where('identify', { prop: 'blocked', op: 'exists' }), 'pred')).toEqual(['blocked']);
    expect(await members(where('identify', { prop: 'blocked.reason', op: 'eq', value: 'spam' }), 'pred')).toEqual(['blocked']);
    expect(await members(where('module_selection', { prop: 'type', op: 'eq', value: 'appointments' }), 'pred')).toEqual(['module']);
    expect(await members(where('appointment', { prop: 'appointment.time', op: 'gte', value: Date.UTC(2024, 3, 2) }), 'pred')).toEqual(['visit']);
    expect(await members(where('appointment', { prop: 'appointment.time', op: 'gt', value: Date.UTC(2024, 3, 2) }), 'pred')).toEqual([]);
  });
});

describe('windows: boundaries', () => {
  beforeAll(async () => {
    const from = Date.UTC(2024, 0, 1);
    const to = Date.UTC(2024, 1, 1);
    await seed(analytics, [
      page('win', 'at-start', ago(7)),
      page('win', 'before-start', ago(7, 1)),
      page('win', 'at-now', NOW),
      page('win', 'after-now', NOW + 1),
      page('abs', 'at-from', from),
      page('abs', 'before-from', from - 1),
      page('abs', 'before-to', to - 1),
      page('abs', 'at-to', to),
      // P1M back from 2024-03-31T10:00Z is 2024-02-29T10:00Z (the month end clamps).
      page('month', 'at-start', Date.UTC(2024, 1, 29, 10)),
      page('month', 'before-start', Date.UTC(2024, 1, 29, 10) - 1),
    ]);
  });

  it('relative: [now − d, now], both ends included', async () => {
    expect(await members({ event: 'page', within: 'P7D' }, 'win')).toEqual(['at-now', 'at-start']);
    expect(await members({ event: 'page', within: 'P1W' }, 'win')).toEqual(['at-now', 'at-start']);
    expect(await members({ event: 'page', within: 'PT168H' }, 'win')).toEqual(['at-now', 'at-start']);
  });

  it('absolute: [from, to), from included, to excluded; offsets are read', async () => {
    expect(await members({ event: 'page', within: { from: '2024-01-01T00:00:00Z', to: '2024-02-01T00:00:00Z' } }, 'abs')).toEqual(['at-from', 'before-to']);
    expect(await members({ event: 'page', within: { from: '2024-01-01T03:00:00+03:00', to: '2024-02-01T02:59:59.999+03:00' } }, 'abs')).toEqual(['at-from']);
  });

  it('calendar months are computed in UTC from now', async () => {
    expect(await members({ event: 'page', within: 'P1M' }, 'month')).toEqual(['at-start']);
    expect(await members({ event: 'page', within: 'P1M', count: { eq: 0 } }, 'month')).toEqual(['before-start']);
  });

  it('without a window every event counts, whenever it happened', async () => {
    expect(await members({ event: 'page' }, 'win')).toEqual(['after-now', 'at-now', 'at-start', 'before-start']);
  });
});

describe('aggregate conditions', () => {
  beforeAll(async () => {
    await seed(
      analytics,
      [
        checkout(
          'agg',
          'u1',
          ago(1),
          [
            { id: 'a', price: 1 },
            { id: 'b', price: 2 },
          ],
          10,
        ),
        checkout('agg', 'u1', ago(2), [{ id: 'b', price: 2 }, { id: 'c' }], 20),
        checkout('agg', 'u1', ago(40), [{ id: 'z', price: 100 }], 1000),
        checkout('agg', 'u2', ago(1), [{ id: 'a', price: 5 }], 5),
        page('agg', 'u3', ago(1)),
      ],
      [user('agg', 'u4', {})],
    );
  });

  const agg = (fn: string, prop: string, op: string, value: unknown) => ({ aggregate: { event: 'checkout', prop, fn }, op, value, within: 'P30D' });

  it('sum, avg, min, max of a number', async () => {
    expect(await members(agg('sum', 'cart_price', 'gte', 30), 'agg')).toEqual(['u1']);
    expect(await members(agg('avg', 'cart_price', 'eq', 15), 'agg')).toEqual(['u1']);
    expect(await members(agg('min', 'cart_price', 'lt', 10), 'agg')).toEqual(['u2']);
    expect(await members(agg('max', 'cart_price', 'in', [5, 20]), 'agg')).toEqual(['u1', 'u2']);
  });

  it('through [] over every element; count_distinct of any type', async () => {
    expect(await members(agg('sum', 'items[].price', 'eq', 5), 'agg')).toEqual(['u1', 'u2']);
    expect(await members(agg('count_distinct', 'items[].id', 'eq', 3), 'agg')).toEqual(['u1']);
    expect(await members(agg('count_distinct', 'currency', 'eq', 1), 'agg')).toEqual(['u1', 'u2']);
  });

  it('over no events: sum and count_distinct are 0, avg/min/max have no value (only neq and nin match)', async () => {
    expect(await members(agg('sum', 'cart_price', 'lt', 10), 'agg')).toEqual(['u2', 'u3', 'u4']);
    expect(await members(agg('count_distinct', 'items[].id', 'eq', 0), 'agg')).toEqual(['u3', 'u4']);
    expect(await members(agg('avg', 'cart_price', 'neq', 15), 'agg')).toEqual(['u2', 'u3', 'u4']);
    expect(await members(agg('max', 'cart_price', 'lte', 1000), 'agg')).toEqual(['u1', 'u2']);
  });
});

describe('sequence conditions', () => {
  beforeAll(async () => {
    await seed(analytics, [
      cart('seq', 'in-order', ago(2)),
      checkout('seq', 'in-order', ago(1), [{ id: 'a' }]),
      checkout('seq', 'reversed', ago(2), [{ id: 'a' }]),
      cart('seq', 'reversed', ago(1)),
      cart('seq', 'outside', ago(8)),
      checkout('seq', 'outside', ago(1), [{ id: 'a' }]),
      cart('seq', 'same-ms', ago(1)),
      checkout('seq', 'same-ms', ago(1), [{ id: 'a' }]),
      // A later cart at the checkout's millisecond must not hide the earlier cart.
      cart('seq', 'restart', ago(3)),
      cart('seq', 'restart', ago(2)),
      checkout('seq', 'restart', ago(2), [{ id: 'a' }]),
      page('seq', 'restart', ago(1)),
      // A step's where: only removal carts.
      cart('seq', 'removed', ago(2), 'remove_item'),
      checkout('seq', 'removed', ago(1), [{ id: 'a' }]),
    ]);
  });

  it('steps in this order, each strictly after the one before, all inside the window', async () => {
    const def = { sequence: [{ event: 'cart' }, { event: 'checkout' }], within: 'P7D' };
    expect(await members(def, 'seq')).toEqual(['in-order', 'removed', 'restart']);
  });

  it('longer sequences and step predicates', async () => {
    expect(await members({ sequence: [{ event: 'cart' }, { event: 'checkout' }, { event: 'page' }], within: 'P7D' }, 'seq')).toEqual(['restart']);
    const removal = { event: 'cart', where: [{ prop: 'action', op: 'eq', value: 'remove_item' }] };
    expect(await members({ sequence: [removal, { event: 'checkout' }] }, 'seq')).toEqual(['removed']);
    expect(await members({ sequence: [{ event: 'cart' }, { event: 'cart' }] }, 'seq')).toEqual(['restart']);
  });

  it('without a window, the whole history', async () => {
    expect(await members({ sequence: [{ event: 'cart' }, { event: 'checkout' }] }, 'seq')).toEqual(['in-order', 'outside', 'removed', 'restart']);
  });
});

describe('first_seen and last_seen', () => {
  beforeAll(async () => {
    await seed(
      analytics,
      [page('seen', 'new', ago(2)), page('seen', 'old', ago(10)), page('seen', 'old', ago(1)), page('seen', 'gone', ago(8)), page('seen', 'gone', ago(20))],
      [user('seen', 'no-events', {})],
    );
  });

  it('first_seen within: the first event of the user in the window', async () => {
    expect(await members({ first_seen: { within: 'P7D' } }, 'seen')).toEqual(['new']);
    expect(await members({ first_seen: { within: { from: '2024-03-01T00:00:00Z', to: '2024-03-22T00:00:00Z' } } }, 'seen')).toEqual(['gone', 'old']);
  });

  it('last_seen within and before', async () => {
    expect(await members({ last_seen: { within: 'P7D' } }, 'seen')).toEqual(['new', 'old']);
    expect(await members({ last_seen: { before: 'P7D' } }, 'seen')).toEqual(['gone']);
    expect(await members({ not: { last_seen: { within: 'P7D' } } }, 'seen')).toEqual(['gone', 'no-events']);
  });

  // The query then reads every event only since the windows' start when it may (compile.ts).
  it('beside windowed event conditions: older events still count for first seen and for an alternative', async () => {
    expect(await members({ all: [{ event: 'page', within: 'P3D' }, { not: { last_seen: { before: 'P1D' } } }] }, 'seen')).toEqual(['old']);
    expect(await members({ all: [{ event: 'page', within: 'P3D' }, { first_seen: { within: 'P7D' } }] }, 'seen')).toEqual(['new']);
    expect(await members({ any: [{ event: 'page', within: 'P3D' }, { last_seen: { before: 'P7D' } }] }, 'seen')).toEqual(['gone', 'new', 'old']);
  });
});

describe('profile conditions', () => {
  beforeAll(async () => {
    await seed(
      analytics,
      [
        page('prof', 'u1', ago(2), { os: 'android', app_version_code: 100 }),
        page('prof', 'u1', ago(1), { os: 'ios', app_version_code: 142 }),
        page('prof', 'u3', ago(1), { os: 'android', app_version_code: null }),
      ],
      [
        user('prof', 'u1', { country: 'Uganda' }, 1_000),
        user('prof', 'u1', { country: 'Kenya', gender: 'female', birth_year: 1990 }, 2_000),
        user('prof', 'u2', { country: 'Uganda', gender: 'undisclosed' }),
      ],
    );
  });

  it('a user catalog field: the latest record', async () => {
    expect(await members({ profile: 'country', op: 'eq', value: 'Kenya' }, 'prof')).toEqual(['u1']);
    expect(await members({ profile: 'country', op: 'neq', value: 'Kenya' }, 'prof')).toEqual(['u2', 'u3']);
    expect(await members({ profile: 'country', op: 'exists' }, 'prof')).toEqual(['u1', 'u2']);
    expect(await members({ profile: 'gender', op: 'in', value: ['female', 'undisclosed'] }, 'prof')).toEqual(['u1', 'u2']);
    expect(await members({ profile: 'birth_year', op: 'lt', value: 2000 }, 'prof')).toEqual(['u1']);
  });

  it('a client fact: the latest event', async () => {
    expect(await members({ profile: 'os', op: 'eq', value: 'ios' }, 'prof')).toEqual(['u1']);
    expect(await members({ profile: 'os', op: 'neq', value: 'ios' }, 'prof')).toEqual(['u2', 'u3']);
    expect(await members({ profile: 'app_version_code', op: 'gte', value: 142 }, 'prof')).toEqual(['u1']);
    expect(await members({ profile: 'app_version_code', op: 'exists' }, 'prof')).toEqual(['u1']);
    expect(await members({ profile: 'os', op: 'contains', value: 'droid' }, 'prof')).toEqual(['u3']);
  });
});

describe('catalog predicates', () => {
  beforeAll(async () => {
    await seed(
      analytics,
      [
        checkout('cat', 'u1', ago(1), [{ id: 'd2' }, { id: 'd1' }]),
        checkout('cat', 'u2', ago(1), [{ id: 'd2' }]),
        checkout('cat', 'u3', ago(40), [{ id: 'd1' }]),
        ev('cat', 'u4', 'item', ago(1), { action: 'view', item: { id: 'd1' } }),
        ev('cat', 'u5', 'item', ago(1), { action: 'view', item: { id: 'd3' } }),
      ],
      [
        { app: 'cat', kind: 'drug', id: 'd1', record: { name: 'One', atc_anatomical_group: 'A' } },
        { app: 'cat', kind: 'drug', id: 'd2', record: { name: 'Two', atc_anatomical_group: 'A' }, at: 1_000 },
        { app: 'cat', kind: 'drug', id: 'd2', record: { name: 'Two', atc_anatomical_group: 'B' }, at: 2_000 },
        // Another app's record of the same id never matches.
        { app: 'cat-other', kind: 'drug', id: 'd3', record: { name: 'Three', atc_anatomical_group: 'A' } },
      ],
    );
  });

  const groupA = [{ prop: 'atc_anatomical_group', op: 'eq', value: 'A' }];

  it('via items[].id: an element refers to a record whose latest version matches', async () => {
    const def = { event: 'checkout', where: [{ catalog: 'drug', via: 'items[].id', where: groupA }], within: 'P30D' };
    expect(await members(def, 'cat')).toEqual(['u1']);
    const groupB = { event: 'checkout', where: [{ catalog: 'drug', via: 'items[].id', where: [{ prop: 'atc_anatomical_group', op: 'eq', value: 'B' }] }] };
    expect(await members(groupB, 'cat')).toEqual(['u1', 'u2']);
  });

  it("via item.id; the catalog's id and an empty where", async () => {
    expect(await members({ event: 'item', where: [{ catalog: 'drug', via: 'item.id', where: groupA }] }, 'cat')).toEqual(['u4']);
    expect(await members({ event: 'item', where: [{ catalog: 'drug', via: 'item.id', where: [] }] }, 'cat')).toEqual(['u4']);
    expect(
      await members({ event: 'checkout', where: [{ catalog: 'drug', via: 'items[].id', where: [{ prop: 'id', op: 'eq', value: 'd1' }] }] }, 'cat'),
    ).toEqual(['u1', 'u3']);
  });
});

describe('responded conditions', () => {
  beforeAll(async () => {
    await seed(analytics, [
      nudge('resp', 'u1', ago(1), '4:9', 'open'),
      nudge('resp', 'u2', ago(1), '4:8', 'open'),
      nudge('resp', 'u3', ago(1), '5:9', 'shown'),
      nudge('resp', 'u4', ago(10), '4:9', 'open'),
    ]);
  });

  it('by response, action_id, inv_id and window', async () => {
    expect(await members({ responded: { response: 'open' }, within: 'P7D' }, 'resp')).toEqual(['u1', 'u2']);
    expect(await members({ responded: { action_id: 9 } }, 'resp')).toEqual(['u1', 'u3', 'u4']);
    expect(await members({ responded: { inv_id: 4, action_id: 9 }, within: 'P7D' }, 'resp')).toEqual(['u1']);
    expect(await members({ responded: {} }, 'resp')).toEqual(['u1', 'u2', 'u3', 'u4']);
    expect(await members({ event: 'action_response', where: [{ prop: 'response', op: 'eq', value: 'shown' }] }, 'resp')).toEqual(['u3']);
  });

  it("by tag: the created action's tags in the action log, for that user", async () => {
    const created = (app: string, user: string, inv: number, action: number, tags: string[]) => ({
      entry_id: `${app}-${user}-${inv}-${action}`,
      app_id: app,
      user_id: user,
      inv_id: inv,
      action_id: action,
      kind: 'created',
      at: '2026-01-01 00:00:00.000',
      created_at: '2026-01-01 00:00:00.000',
      type: 'message',
      render_method: 'in_app_message',
      delivery_mode: 'one-off',
      expired_at: null,
      tags,
      attr: {},
      source: 'api',
    });
    await analytics.insert('actions_log', [
      created('resp', 'u1', 4, 9, ['promo', 'spring']),
      created('resp', 'u2', 4, 8, ['other']),
      // u3's response names 5:9, created for u4 with the tag: a ref of another user's action does not count.
      created('resp', 'u4', 5, 9, ['promo']),
      // Another app's log never counts.
      created('resp-other', 'u2', 4, 8, ['promo']),
    ]);
    expect(await members({ responded: { tag: 'promo' } }, 'resp')).toEqual(['u1']);
    expect(await members({ responded: { tag: 'other', response: 'open' }, within: 'P7D' }, 'resp')).toEqual(['u2']);
    expect(await members({ responded: { tag: 'none' } }, 'resp')).toEqual([]);
  });
});

describe('segment references', () => {
  it("inline the referenced segment's definition, transitively", async () => {
    const segments: Record<string, Condition> = {
      adders: { event: 'cart', where: [{ prop: 'action', op: 'eq', value: 'add_item' }], within: 'P7D' },
      engaged: { any: [{ segment: 'adders' }, { event: 'page' }] },
    };
    expect(await members({ segment: 'adders' }, 'ev', { segments })).toEqual(['u1', 'u2']);
    expect(await members({ all: [{ segment: 'engaged' }, { not: { segment: 'adders' } }] }, 'ev', { segments })).toEqual([]);
    expect(await members({ not: { segment: 'engaged' } }, 'ev', { segments })).toEqual(['u3', 'u4', 'u5']);
  });
});

describe('scoped evaluation and tenancy', () => {
  beforeAll(async () => {
    await seed(
      analytics,
      [page('ten-a', 'u1', ago(1)), cart('ten-b', 'u1', ago(1)), cart('ten-b', 'u2', ago(1)), checkout('ten-b', 'u1', ago(1), [{ id: 'd3' }])],
      [user('ten-b', 'u1', { country: 'Kenya' }), user('ten-b', 'u9', {})],
    );
  });

  it('scoped = 1 returns only the members among the given users', async () => {
    expect(await members({ event: 'cart', within: 'P7D' }, 'ev', { users: ['u1', 'u3', 'nobody'] })).toEqual(['u1', 'u3']);
    expect(await members({ event: 'cart', count: { eq: 0 } }, 'ev', { users: ['u5', 'u1'] })).toEqual(['u5']);
    expect(await members({ event: 'cart' }, 'ev', { users: [] })).toEqual([]);
  });

  it("another app's events and catalog records never affect membership", async () => {
    expect(await members({ event: 'cart' }, 'ten-a')).toEqual([]);
    expect(await members({ not: { event: 'cart' } }, 'ten-a')).toEqual(['u1']);
    expect(await members({ profile: 'country', op: 'eq', value: 'Kenya' }, 'ten-a')).toEqual([]);
    expect(await members({ profile: 'country', op: 'neq', value: 'Kenya' }, 'ten-a')).toEqual(['u1']);
    expect(await members({ event: 'checkout', where: [{ catalog: 'drug', via: 'items[].id', where: [] }] }, 'ten-b')).toEqual([]);
    expect(await members({ event: 'checkout', where: [{ catalog: 'drug', via: 'items[].id', where: [] }] }, 'cat-other')).toEqual([]);
  });
});

describe('values never become SQL', () => {
  it('a value with quotes and SQL in it is only a parameter', async () => {
    const nasty = "x') OR 1 = 1 --\\\n\t{p0:String}";
    expect(await members({ event: 'cart', where: [{ prop: 'id', op: 'eq', value: nasty }] }, 'ev')).toEqual([]);
    expect(await members({ profile: 'country', op: 'in', value: [nasty, 'Kenya'] }, 'ev')).toEqual(['u5']);
  });

  it('and compares exactly with the value stored', async () => {
    const odd = "O'Brien \\ \n\t ünïcödé {x:String}";
    await seed(analytics, [cart('odd', 'u1', ago(1)), cart('odd', 'u2', ago(1))], [user('odd', 'u1', { city: odd }), user('odd', 'u2', { city: `${odd} ` })]);
    expect(await members({ profile: 'city', op: 'eq', value: odd }, 'odd')).toEqual(['u1']);
    expect(await members({ profile: 'city', op: 'contains', value: "'Brien \\ \n" }, 'odd')).toEqual(['u1', 'u2']);
  });
});
