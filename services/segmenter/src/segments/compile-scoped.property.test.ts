import type { Analytics } from '@evp/core';
import type { CanonicalEvent } from '@evp/schemas';
import { useMigratedChdb } from '@evp/testkit';
import fc from 'fast-check';
import { type Condition, validateDefinition } from '@evp/segment-language';
import { type CatalogSeed, ev, membersOf, referenceMembers, seed } from '../testing';

// Incremental evaluation rests on this: the compiled query restricted to some users (scoped = 1)
// gives exactly the full evaluation's members among them. For random definitions over a small
// vocabulary and random event streams, evaluating every part of a random partition of the users
// (plus a user with no data) gives back the full membership, each part only its own users; and the
// full membership is what the language's semantics, written plainly (segment-reference-model.ts), say.
const chdb = useMigratedChdb('segscoped');
let analytics: Analytics;
beforeAll(() => {
  analytics = chdb.analytics;
});

const NOW = Date.UTC(2024, 2, 31, 10, 0, 0);
const HOUR = 3_600_000;
const USERS = ['u0', 'u1', 'u2', 'u3', 'u4', 'u5'];

const window = fc.option(fc.constantFrom<unknown>('P7D', 'P1D', 'PT12H', 'P1M', { from: '2024-03-25T00:00:00Z', to: '2024-03-30T00:00:00Z' }), {
  nil: undefined,
});
const withWindow = <T extends object>(c: T, w: unknown) => (w === undefined ? c : { ...c, within: w });
const count = fc.option(
  fc.tuple(fc.constantFrom('gte', 'lte', 'eq', 'gt', 'lt'), fc.integer({ min: 0, max: 3 })).map(([op, n]) => ({ [op]: n })),
  { nil: undefined },
);

const where = fc.constantFrom<unknown[]>(
  [],
  [{ prop: 'action', op: 'eq', value: 'add_item' }],
  [{ prop: 'cart_price', op: 'gt', value: 10 }],
  [{ prop: 'action', op: 'neq', value: 'add_item' }],
);

const leaf: fc.Arbitrary<unknown> = fc.oneof(
  fc.tuple(fc.constantFrom('page', 'checkout'), count, window).map(([event, c, w]) => withWindow(c ? { event, count: c } : { event }, w)),
  fc.tuple(where, count, window).map(([wh, c, w]) => withWindow({ event: 'cart', where: wh, ...(c ? { count: c } : {}) }, w)),
  fc
    .tuple(fc.constantFrom('sum', 'avg', 'min', 'max', 'count_distinct'), fc.constantFrom('gt', 'lt', 'eq', 'neq'), fc.integer({ min: 0, max: 20 }), window)
    .map(([fn, op, value, w]) => withWindow({ aggregate: { event: 'cart', prop: 'cart_price', fn }, op, value }, w)),
  window.map((w) => withWindow({ sequence: [{ event: 'cart' }, { event: 'checkout' }] }, w)),
  fc.constantFrom<unknown>({ first_seen: { within: 'P7D' } }, { last_seen: { within: 'P1D' } }, { last_seen: { before: 'P3D' } }),
  fc.constantFrom<unknown>(
    { profile: 'country', op: 'eq', value: 'Kenya' },
    { profile: 'country', op: 'neq', value: 'Kenya' },
    { profile: 'country', op: 'exists' },
    { profile: 'os', op: 'eq', value: 'ios' },
    { profile: 'os', op: 'neq', value: 'android' },
  ),
  window.map((w) => withWindow({ responded: { response: 'open' } }, w)),
  fc.constant<unknown>({ event: 'checkout', where: [{ catalog: 'drug', via: 'items[].id', where: [{ prop: 'atc_anatomical_group', op: 'eq', value: 'A' }] }] }),
);

const definition = fc.letrec<{ cond: unknown }>((tie) => ({
  cond: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('cond'), { minLength: 1, maxLength: 3 }).map((all) => ({ all })),
    fc.array(tie('cond'), { minLength: 1, maxLength: 3 }).map((any) => ({ any })),
    tie('cond').map((not) => ({ not })),
  ),
})).cond;

interface Happening {
  user: string;
  kind: 'page' | 'cart' | 'checkout' | 'nudge';
  hoursAgo: number;
  pick: number;
}

const happening = fc.record<Happening>({
  user: fc.constantFrom(...USERS),
  kind: fc.constantFrom('page', 'cart', 'checkout', 'nudge'),
  // A few instants often, so events share a millisecond (sequences must not order them); exactly 1
  // and 7 days ago sit on window boundaries, -1 is after now.
  hoursAgo: fc.oneof({ arbitrary: fc.integer({ min: -2, max: 24 * 40 }), weight: 1 }, { arbitrary: fc.constantFrom(-1, 2, 24, 48, 168), weight: 2 }),
  pick: fc.integer({ min: 0, max: 3 }),
});

function toEvent(app: string, h: Happening): CanonicalEvent {
  const time = NOW - h.hoursAgo * HOUR;
  const client = { os: h.pick % 2 === 0 ? 'android' : 'ios' };
  switch (h.kind) {
    case 'page':
      return ev(app, h.user, 'page', time, { path: '/', title: 'Home', duration: 1, render_time: 1 }, client);
    case 'cart':
      return ev(
        app,
        h.user,
        'cart',
        time,
        { id: 'c', action: h.pick < 2 ? 'add_item' : 'remove_item', cart_price: h.pick * 6, currency: 'KES', item: { id: 'i' } },
        client,
      );
    case 'checkout':
      return ev(
        app,
        h.user,
        'checkout',
        time,
        { id: 'o', cart_id: 'c', cart_price: 10, currency: 'KES', items: [{ id: h.pick < 2 ? 'd1' : 'd2' }], is_successful: true },
        client,
      );
    case 'nudge':
      return ev(app, h.user, 'nudge_response', time, { ref: '1:1', time: 'x', response: h.pick < 2 ? 'open' : 'shown' }, client);
  }
}

let run = 0;

describe('scoped evaluation = full evaluation, restricted', () => {
  it('for random definitions and event streams, every part of a partition of the users', async () => {
    await fc.assert(
      fc.asyncProperty(
        definition,
        fc.array(happening, { maxLength: 30 }),
        fc.subarray(USERS),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: USERS.length + 1, maxLength: USERS.length + 1 }),
        async (def, happenings, catalogUsers, parts) => {
          expect(validateDefinition(def, { definitionOf: () => undefined })).toMatchObject({ ok: true });
          const app = `prop-${run++}`;
          const events = happenings.map((h) => toEvent(app, h));
          const records: CatalogSeed[] = [
            ...catalogUsers.map((id, i) => ({
              app,
              kind: 'user' as const,
              id,
              record: { timezone: '+03:00', ...(i % 3 === 2 ? {} : { country: i % 3 ? 'Kenya' : 'Uganda' }) },
            })),
            { app, kind: 'drug', id: 'd1', record: { name: 'One', atc_anatomical_group: 'A' } },
            { app, kind: 'drug', id: 'd2', record: { name: 'Two', atc_anatomical_group: 'B' } },
          ];
          // A redelivered first event must change nothing either.
          await seed(analytics, [...events, ...events.slice(0, 1)], records);
          const full = await membersOf(analytics, def, app, NOW);
          const users = Object.fromEntries(records.filter((r) => r.kind === 'user').map((r) => [r.id, r.record]));
          const drugs = Object.fromEntries(records.filter((r) => r.kind === 'drug').map((r) => [r.id, r.record]));
          expect(full).toEqual(referenceMembers(def as Condition, { events: [...events, ...events.slice(0, 1)], users, catalogs: { drug: drugs }, now: NOW }));
          const everyone = [...USERS, 'ghost'];
          const union: string[] = [];
          for (let part = 0; part < 4; part++) {
            const users = everyone.filter((_, i) => parts[i] === part);
            const scoped = await membersOf(analytics, def, app, NOW, { users });
            expect(scoped.filter((u) => !users.includes(u))).toEqual([]);
            union.push(...scoped);
          }
          expect(union.sort()).toEqual(full);
        },
      ),
      { numRuns: 60 },
    );
  });
});
