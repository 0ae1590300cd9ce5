import fc from 'fast-check';
import { allTopics } from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { useMigratedChdb } from '@evp/testkit';
import { compileSegment, type Condition, evaluationParams } from '@evp/segment-language';
import type { SegmentEngineDeps } from './engine';
import { type EngineHarness, handCompile, insertEvents, readMembership, startEngine, userEvent } from '../testing';
import type { MembershipChange, Segment } from './model';

// Incremental evaluation (scoped items for the users whose events arrived, batch after batch, with
// time passing) followed by one scheduled pass gives exactly the membership of a full recompute,
// and the membership topic's records replay to that membership: every (segment, user) has changes
// seq 1, 2, … alternating entered/exited from entered, none twice. The definitions are random within
// what the hand-written compiler knows, and then any combination of event, count (including "did not"),
// first/last seen and not/all/any compiled by the real compiler (compile/).
const chdb = useMigratedChdb('segprop');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const USERS = ['u0', 'u1', 'u2', 'u3', 'u4', 'u5'];
// Names of the data contract: the real compiler reads each event's definition.
const NAMES = ['page', 'search', 'checkout'];

const definition = fc.record({
  event: fc.constantFrom('page', 'search'),
  count: fc.record({ gte: fc.integer({ min: 1, max: 3 }) }),
  within: fc.constantFrom('PT30M', 'PT2H', 'P1D', undefined),
});
const batch = fc.record({
  advanceMs: fc.integer({ min: 0, max: 6 * HOUR }),
  events: fc.array(fc.record({ user: fc.constantFrom(...USERS), name: fc.constantFrom(...NAMES), ageMs: fc.integer({ min: 0, max: 30 * HOUR }) }), {
    maxLength: 8,
  }),
});
type Batch = typeof batch extends fc.Arbitrary<infer B> ? B : never;
const window = fc.constantFrom('PT30M', 'PT2H', 'P1D', undefined);
const countOp = fc.oneof(
  fc.record({ gte: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ lt: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ eq: fc.integer({ min: 0, max: 2 }) }),
);
const leaf: fc.Arbitrary<Condition> = fc.oneof(
  fc
    .record({ event: fc.constantFrom(...NAMES), count: countOp, within: window })
    .map(({ within, ...rest }) => (within === undefined ? rest : { ...rest, within })),
  fc.record({ first_seen: fc.record({ within: fc.constantFrom('PT2H', 'P1D') }) }),
  fc.constantFrom<Condition>({ last_seen: { within: 'PT2H' } }, { last_seen: { before: 'PT2H' } }),
);
const anyDefinition: fc.Arbitrary<Condition> = fc.oneof(
  leaf,
  fc.record({ not: leaf }),
  fc.array(leaf, { minLength: 2, maxLength: 3 }).map((all) => ({ all })),
  fc.array(leaf, { minLength: 2, maxLength: 3 }).map((any) => ({ any })),
);
const realCompile = (seg: Segment) => compileSegment(seg.definition, { definitionOf: () => undefined });
const scenario = fc.record({
  definition,
  batches: fc.array(batch, { minLength: 1, maxLength: 6 }),
  finalAdvanceMs: fc.integer({ min: MINUTE, max: 2 * 24 * HOUR }),
});

let clock = Date.UTC(2026, 2, 1);
let h: EngineHarness;
let records: () => Promise<{ change: MembershipChange; change_id: string | undefined }[]>;

/** A fresh engine with this compiler, on a bus of its own. */
async function engineWith(compile: SegmentEngineDeps['compile']) {
  const bus = createInProcessBus({ retryDelayMs: 5 });
  await bus.ensureTopics(allTopics());
  const registry = createInProcessRegistry();
  h = await startEngine({ analytics: chdb.analytics, bus, registry, now: () => clock, compile });
  records = () => readMembership(bus, registry);
}
afterEach(async () => {
  await h.stop();
});

let run = 0;

describe('incremental evaluation + one scheduled pass = full recompute', () => {
  const property = (compile: SegmentEngineDeps['compile']) => async (s: { definition: Condition; batches: Batch[]; finalAdvanceMs: number }) => {
    const app = `app-prop-${run++}`;
    clock += 10 * 24 * HOUR;
    const def = s.definition;
    const seg = await h.engine.definitions.create(app, { name: 'p', definition: def });
    await h.engine.scheduler.requestRecompute(app, seg.id);
    await h.engine.refresh();
    await h.settled();
    for (const b of s.batches) {
      clock += b.advanceMs;
      if (b.events.length === 0) continue;
      await insertEvents(
        chdb.analytics,
        b.events.map((e) => userEvent(app, e.user, e.name, clock - e.ageMs)),
      );
      await h.engine.onInserted(b.events.map((e) => ({ app_id: app, user_id: e.user, name: e.name })));
      await h.settled();
    }
    clock += s.finalAdvanceMs;
    await h.engine.scheduleTimeDriven();
    await h.settled();

    const c = await compile(seg);
    const full = (await chdb.analytics.query<{ user_id: string }>(c.sql, { ...c.params, ...evaluationParams(app, new Date(clock)) }))
      .map((r) => r.user_id)
      .sort();
    const members = (await h.engine.membership.members(app, seg.id, { limit: 100 })).data.map((m) => m.user_id);
    expect(members).toEqual(full);

    const changes = (await records()).filter((r) => r.change.segment_id === seg.id);
    const ids = changes.map((r) => r.change_id);
    expect(new Set(ids).size).toBe(ids.length);
    const replayed = new Set<string>();
    for (const user of USERS) {
      const mine = changes.map((r) => r.change).filter((ch) => ch.user_id === user);
      // In topic order (one key, one partition): seq 1, 2, …, entered first, then alternating.
      expect(mine.map((ch) => ch.seq)).toEqual(mine.map((_, i) => i + 1));
      expect(mine.map((ch) => ch.change)).toEqual(mine.map((_, i) => (i % 2 === 0 ? 'entered' : 'exited')));
      if (mine.length % 2 === 1) replayed.add(user);
    }
    expect([...replayed].sort()).toEqual(full);
  };

  it('over random event streams and event-count definitions (hand-written compiler)', async () => {
    await engineWith(handCompile);
    const eventCount = scenario.map((sc) => {
      const { within, ...rest } = sc.definition;
      return { ...sc, definition: within === undefined ? rest : { ...rest, within } };
    });
    await fc.assert(fc.asyncProperty(eventCount, property(handCompile)), { numRuns: 20 });
  });

  it('over random event streams and combined definitions (the real compiler)', async () => {
    await engineWith(realCompile);
    const combined = fc.record({
      definition: anyDefinition,
      batches: fc.array(batch, { minLength: 1, maxLength: 6 }),
      finalAdvanceMs: fc.integer({ min: MINUTE, max: 2 * 24 * HOUR }),
    });
    await fc.assert(fc.asyncProperty(combined, property(realCompile)), { numRuns: 25 });
  });
});
