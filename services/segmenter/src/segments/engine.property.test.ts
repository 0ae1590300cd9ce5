import fc from 'fast-check';
import { allTopics } from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { useMigratedChdb } from '@evp/testkit';
import { evaluationParams } from './compiled';
import type { EventCondition } from './definition';
import { insertEvents, readMembership, startEngine, userEvent, type EngineHarness } from './engine-test-harness';
import type { MembershipChange } from './model';
import { handCompile } from './testing/hand-compiler';

// Incremental evaluation (scoped items for the users whose events arrived, batch after batch, with
// time passing) followed by one scheduled pass gives exactly the membership of a full recompute,
// and the membership topic's records replay to that membership: every (segment, user) has changes
// seq 1, 2, … alternating entered/exited from entered, none twice. The definitions are random within
// what the hand-written compiler knows; the lead reruns this with the real compiler.
const chdb = useMigratedChdb('segprop');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const USERS = ['u0', 'u1', 'u2', 'u3', 'u4', 'u5'];
const NAMES = ['a', 'b', 'c'];

const definition = fc.record({
  event: fc.constantFrom('a', 'b'),
  count: fc.record({ gte: fc.integer({ min: 1, max: 3 }) }),
  within: fc.constantFrom('PT30M', 'PT2H', 'P1D', undefined),
});
const batch = fc.record({
  advanceMs: fc.integer({ min: 0, max: 6 * HOUR }),
  events: fc.array(fc.record({ user: fc.constantFrom(...USERS), name: fc.constantFrom(...NAMES), ageMs: fc.integer({ min: 0, max: 30 * HOUR }) }), {
    maxLength: 8,
  }),
});
const scenario = fc.record({
  definition,
  batches: fc.array(batch, { minLength: 1, maxLength: 6 }),
  finalAdvanceMs: fc.integer({ min: MINUTE, max: 2 * 24 * HOUR }),
});

let clock = Date.UTC(2026, 2, 1);
let h: EngineHarness;
let records: () => Promise<{ change: MembershipChange; change_id: string | undefined }[]>;

beforeAll(async () => {
  const bus = createInProcessBus({ retryDelayMs: 5 });
  await bus.ensureTopics(allTopics());
  const registry = createInProcessRegistry();
  h = await startEngine({ analytics: chdb.analytics, bus, registry, now: () => clock });
  records = () => readMembership(bus, registry);
});
afterAll(async () => {
  await h.stop();
});

let run = 0;

describe('incremental evaluation + one scheduled pass = full recompute', () => {
  it('over random event streams and definitions', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const app = `app-prop-${run++}`;
        clock += 10 * 24 * HOUR;
        const { within, ...rest } = s.definition;
        const def: EventCondition = within === undefined ? rest : { ...rest, within };
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

        const c = handCompile(seg);
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
      }),
      { numRuns: 20 },
    );
  });
});
