import { createLogger, DEFAULT_RETENTION, ManualClock, type Analytics, type Bus, type SchemaRegistry } from '@evp/core';
import { insertEvents, readMembership, startEngine, userEvent, type EngineHarness } from './engine-harness';
import type { MembershipChange, SegmentEngineConfig } from '../segments';
import { floorsBySegment } from '../segments';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** On a whole hour: the expiry's timer fires on the multiples of its period of the clock. */
const NOW = Date.UTC(2026, 5, 30, 0, 0, 0);
const ts = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

/** What the adapters under test give the scenario: ClickHouse, a bus and a registry, and the topics to use. */
export interface ExpiryScenarioDeps {
  analytics: Analytics;
  bus: Bus;
  registry: SchemaRegistry;
  app: string;
  /** The other app, whose retention is forever. */
  otherApp: string;
  config?: Partial<SegmentEngineConfig>;
  /** The tests' poll with a deadline (@evp/testkit's waitFor). */
  waitFor: <T>(check: () => Promise<T | undefined | false> | T | undefined | false, opts?: { what?: string }) => Promise<T>;
}

/** What the scenario saw, for the test to assert exactly. */
export interface ExpiryScenarioResult {
  /** The members of the segment (FINAL) after the first, failed round: nothing was deleted. */
  afterFailedRound: string[];
  /** The warning of the failed round. */
  failure: { app_id: string; msg: string } | undefined;
  /** After the second round: the app's keys, the other app's, and rows of `gone` left on disk (the deleted mask ignored). */
  afterRound: string[];
  other: string[];
  goneRowsOnDisk: number;
  manyRowsOnDisk: number;
  floors: { segment_id: string; floor: number }[];
  /** The records produced when gone, many and fresh (a new user) entered after the expiry. */
  reentries: [string, string, number][];
  /** Which of them a consumer that drops a change whose seq is not above the last it applied keeps. */
  accepted: string[];
  segmentId: string;
}

/**
 * The expiry of ended memberships on the segment engine's timer (docs/privacy.md, "Segment
 * memberships"), over given adapters: keys with a history of changes are stored as the engine
 * writes them (each change twice, emitted false then true); the app keeps its `history` 30 days.
 * The engine's ManualClock is moved one hour (the interval) at a time. The first round's delete
 * fails (injected) and is logged; the second deletes what ended more than 30 days ago. Then users
 * whose keys were deleted enter again through the engine, and the records are fed to a consumer
 * that drops a change whose seq is not above the last one it applied (docs/segments.md).
 */
export async function runExpiryScenario(deps: ExpiryScenarioDeps): Promise<ExpiryScenarioResult> {
  const { app, otherApp, waitFor } = deps;
  const clock = new ManualClock(NOW);
  const lines: { level: number; msg: string; app_id?: string }[] = [];
  const logger = createLogger('expiry-scenario', 'info', { write: (line: string) => void lines.push(JSON.parse(line)) });
  let deletes = 0;
  // The first delete of segment_members fails: the round logs it and the next one tries again.
  const analytics: Analytics = {
    ...deps.analytics,
    command: async (sql, params) => {
      if (sql.startsWith('DELETE FROM segment_members') && deletes++ === 0) throw new Error('injected: ClickHouse away');
      return deps.analytics.command(sql, params);
    },
  };
  const h: EngineHarness = await startEngine({
    analytics,
    bus: deps.bus,
    registry: deps.registry,
    now: () => clock.now(),
    clock,
    logger,
    config: { ...deps.config, expiryIntervalMs: HOUR },
    expiry: {
      apps: () => [app, otherApp],
      retention: (a) => (a === app ? { ...DEFAULT_RETENTION, history: 30 } : DEFAULT_RETENTION),
    },
  });
  try {
    const seg = await h.engine.definitions.create(app, { name: 'buyers', definition: { event: 'purchase', count: { gte: 2 }, within: 'P1D' } });
    const otherSeg = await h.engine.definitions.create(otherApp, { name: 'buyers', definition: { event: 'purchase' } });
    await h.engine.refresh();

    // Each key's history, as the engine wrote it: [seq, is_member, days ago] per change.
    const histories: Record<string, [number, boolean, number][]> = {
      gone: [
        [1, true, 100],
        [2, false, 40],
      ],
      many: [
        [1, true, 100],
        [2, false, 90],
        [3, true, 80],
        [4, false, 35],
      ],
      recent: [
        [1, true, 100],
        [2, false, 10],
      ],
      back: [
        [1, true, 100],
        [2, false, 60],
        [3, true, 50],
      ],
    };
    const store = async (appId: string, segmentId: string, user: string, history: [number, boolean, number][]) => {
      for (const [seq, isMember, daysAgo] of history) {
        const at = NOW - daysAgo * DAY;
        const entered = isMember ? at : NOW - (history.find(([s]) => s === seq - 1)?.[2] ?? 0) * DAY;
        for (const emitted of [false, true])
          await deps.analytics.insert('segment_members', [
            {
              app_id: appId,
              segment_id: segmentId,
              user_id: user,
              is_member: isMember,
              entered_at: ts(entered),
              exited_at: isMember ? null : ts(at),
              version: 1,
              seq,
              emitted,
              state_version: seq * 2 + (emitted ? 1 : 0),
              written_at: ts(at),
            },
          ]);
      }
    };
    for (const [user, history] of Object.entries(histories)) await store(app, seg.id, user, history);
    await store(otherApp, otherSeg.id, 'gone', histories.gone as [number, boolean, number][]);
    // The consumer's copy: the last seq it applied per user (the topic carried each history).
    const last = new Map(Object.entries(histories).map(([user, history]) => [user, history[history.length - 1]?.[0] as number]));

    const members = async (appId: string) =>
      (
        await deps.analytics.query<{ user_id: string; is_member: boolean; seq: number }>(
          `SELECT user_id, is_member, seq FROM segment_members FINAL WHERE app_id = {app:String} ORDER BY user_id`,
          { app: appId },
        )
      ).map((r) => `${r.user_id}:${r.is_member ? 'in' : 'out'}:${r.seq}`);
    const onDisk = async (user: string) =>
      (
        await deps.analytics.query<{ n: number }>(
          `SELECT toUInt32(count()) AS n FROM segment_members WHERE app_id = {app:String} AND user_id = {user:String} SETTINGS apply_deleted_mask = 0`,
          { app, user },
        )
      )[0]?.n ?? -1;

    // Round 1 (the first multiple of the hour): the delete fails, is logged, nothing is deleted.
    await clock.advance(HOUR);
    const failure = await waitFor(() => lines.find((l) => l.msg.startsWith('expiry of ended memberships failed')), { what: 'the failed round’s warning' });
    await waitFor(() => clock.pending() === 1, { what: 'the next round to be set' });
    const afterFailedRound = await members(app);

    // Round 2: deleted, every version, from disk too.
    await clock.advance(HOUR);
    await waitFor(async () => (await onDisk('gone')) === 0 && (await onDisk('many')) === 0, { what: 'the ended keys to be deleted' });
    const afterRound = await members(app);
    const other = await members(otherApp);
    const floors = await deps.analytics.query<{ segment_id: string; floor: number }>(floorsBySegment('app_id = {app:String}'), { app });
    const [goneRowsOnDisk, manyRowsOnDisk] = [await onDisk('gone'), await onDisk('many')];

    // gone, many and a new user buy twice: they enter, through the engine.
    const users = ['gone', 'many', 'fresh'];
    const at = clock.now();
    await insertEvents(
      deps.analytics,
      users.flatMap((u) => [userEvent(app, u, 'purchase', at - HOUR), userEvent(app, u, 'purchase', at - HOUR / 2)]),
    );
    await h.engine.onInserted(users.map((u) => ({ app_id: app, user_id: u, name: 'purchase' })));
    await h.settled();
    const changes: MembershipChange[] = (await readMembership(deps.bus, deps.registry, deps.config?.membershipTopic))
      .map((r) => r.change)
      .filter((c) => c.app_id === app);
    const accepted: string[] = [];
    for (const c of changes) {
      if (c.seq <= (last.get(c.user_id) ?? 0)) continue;
      last.set(c.user_id, c.seq);
      accepted.push(`${c.user_id}:${c.seq}`);
    }
    return {
      afterFailedRound,
      failure: failure && { app_id: failure.app_id as string, msg: failure.msg },
      afterRound,
      other,
      goneRowsOnDisk,
      manyRowsOnDisk,
      floors,
      reentries: changes.map((c) => [c.user_id, c.change, c.seq] as [string, string, number]).sort(),
      accepted: accepted.sort(),
      segmentId: seg.id,
    };
  } finally {
    await h.stop();
  }
}

/** What every run of the scenario must see, exactly (the embedded and the Kafka one). */
export function expectExpiry(r: ExpiryScenarioResult) {
  // Round 1 failed at its delete: logged for the app, nothing deleted.
  expect(r.failure?.msg).toMatch(/^expiry of ended memberships failed \(tried again next round\): injected: ClickHouse away/);
  expect(r.afterFailedRound).toEqual(['back:in:3', 'gone:out:2', 'many:out:4', 'recent:out:2']);
  // Round 2: the keys that ended 40 and 35 days ago are gone, every version, from disk too; the
  // exit 10 days ago and the re-entry stay; the other app keeps everything (forever).
  expect(r.afterRound).toEqual(['back:in:3', 'recent:out:2']);
  expect([r.goneRowsOnDisk, r.manyRowsOnDisk]).toEqual([0, 0]);
  expect(r.other).toEqual(['gone:out:2']);
  // The segment's floor is the highest seq deleted (many's exit, 4).
  expect(r.floors).toEqual([{ segment_id: r.segmentId, floor: 4 }]);
  // Entering again after the deletion starts above the floor: seq 5 for each (odd: an entry), which
  // the consumer that last applied gone's 2 and many's 4 keeps, as it keeps a new user's.
  expect(r.reentries).toEqual([
    ['fresh', 'entered', 5],
    ['gone', 'entered', 5],
    ['many', 'entered', 5],
  ]);
  expect(r.accepted).toEqual(['fresh:5', 'gone:5', 'many:5']);
}
