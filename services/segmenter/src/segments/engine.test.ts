import { allTopics, InfraError, readDeadLetter, topics, type Analytics, type Bus, type DeadLetter } from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { useMigratedChdb, waitFor } from '@evp/testkit';
import { type EngineHarness, insertEvents, readMembership, startEngine, userEvent } from '../testing';
import type { Condition } from '@evp/segment-language';

// The engine on the embedded adapters (in-process bus and registry, chdb), with an injected clock
// and the hand-written compiler. Each test has an app of its own in one migrated database.
const chdb = useMigratedChdb('segments');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T = Date.UTC(2026, 0, 10, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();
const buyers: Condition = { event: 'purchase', count: { gte: 2 }, within: 'P1D' };

let clock = T;
const running: EngineHarness[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((h) => h.stop()));
  clock = T;
});

async function setup(opts: { analytics?: Analytics; busForEngine?: (bus: Bus) => Bus } = {}) {
  const bus = createInProcessBus({ retryDelayMs: 5, maxRetryDelayMs: 20 });
  await bus.ensureTopics(allTopics());
  const registry = createInProcessRegistry();
  const start = async (o: { analytics?: Analytics; bus?: Bus } = {}) => {
    const h = await startEngine({ analytics: o.analytics ?? chdb.analytics, bus: o.bus ?? bus, registry, now: () => clock });
    running.push(h);
    return h;
  };
  const h = await start({ ...(opts.analytics ? { analytics: opts.analytics } : {}), ...(opts.busForEngine ? { bus: opts.busForEngine(bus) } : {}) });
  return { bus, registry, h, start, records: () => readMembership(bus, registry) };
}

/** chdb's Analytics, calling `onMembers` with the rows of each segment_members insert before it (a throw fails the insert). */
const watchMembersInserts = (onMembers: (rows: { emitted: boolean }[]) => void): Analytics => ({
  ...chdb.analytics,
  insert: async (table, rows, opts) => {
    if (table === 'segment_members') onMembers(rows as { emitted: boolean }[]);
    return chdb.analytics.insert(table, rows, opts);
  },
});

/** The engine's recovered changes by outcome (`found` on the topic, `published` by the recovery), sorted. */
async function recoveredChanges(h: EngineHarness): Promise<[string | number | undefined, number][]> {
  const metric = await h.engine.metrics.getSingleMetric('segmenter_segments_recovered_changes_total')!.get();
  return metric.values.map((v): [string | number | undefined, number] => [v.labels.outcome, v.value]).sort();
}

/** How many of the app's membership rows carry the emitted mark (or lack it). */
async function stateRows(app: string, emitted: boolean): Promise<number | undefined> {
  const rows = await chdb.analytics.query<{ n: number }>(
    `SELECT count() AS n FROM segment_members FINAL WHERE app_id = {app:String} AND ${emitted ? '' : 'NOT '}emitted`,
    { app },
  );
  return rows[0]?.n;
}

/** Makes events of `users` (two purchases each within the last hour) and tells the engine, as the sink would. */
async function purchases(h: EngineHarness, app: string, users: string[], at = clock) {
  await insertEvents(
    chdb.analytics,
    users.flatMap((u) => [userEvent(app, u, 'purchase', at - HOUR), userEvent(app, u, 'purchase', at - HOUR / 2)]),
  );
  await h.engine.onInserted(users.map((u) => ({ app_id: app, user_id: u, name: 'purchase' })));
}

describe('segment definitions in ClickHouse', () => {
  it('creates, reads, lists, updates (version + 1) and deletes, per app', async () => {
    const { h } = await setup();
    const defs = h.engine.definitions;
    const a = await defs.create('app-defs', { name: 'buyers', definition: buyers });
    expect(a).toEqual({
      app_id: 'app-defs',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'buyers',
      version: 1,
      definition: buyers,
      created_at: T,
      updated_at: T,
    });
    clock = T + 1_000;
    const b = await defs.create('app-defs', { name: 'browsers', definition: { event: 'page' } });
    await defs.create('app-defs-other', { name: 'theirs', definition: { event: 'page' } });
    expect(await defs.get('app-defs', a.id)).toEqual(a);
    // Another app's segment is not found through this app, whatever its id.
    expect(await defs.get('app-defs-other', a.id)).toBeUndefined();
    expect((await defs.list('app-defs')).map((s) => s.name)).toEqual(['buyers', 'browsers']);

    clock = T + 2_000;
    const changed: Condition = { event: 'purchase', count: { gte: 3 }, within: 'P1D' };
    const updated = await defs.update('app-defs', a.id, { name: 'big buyers', definition: changed });
    expect(updated).toEqual({ ...a, name: 'big buyers', version: 2, definition: changed, updated_at: T + 2_000 });
    expect(await defs.get('app-defs', a.id)).toEqual(updated);
    expect(await defs.update('app-defs-other', a.id, { name: 'x', definition: changed })).toBeUndefined();

    expect(await defs.delete('app-defs', b.id)).toBe(true);
    expect(await defs.delete('app-defs', b.id)).toBe(false);
    expect(await defs.delete('app-defs-other', a.id)).toBe(false);
    expect(await defs.get('app-defs', b.id)).toBeUndefined();
    expect(await defs.update('app-defs', b.id, { name: 'back', definition: changed })).toBeUndefined();
    expect((await defs.list('app-defs')).map((s) => [s.name, s.version])).toEqual([['big buyers', 2]]);
    expect((await defs.listAll()).filter((s) => s.app_id.startsWith('app-defs')).map((s) => [s.app_id, s.name])).toEqual([
      ['app-defs', 'big buyers'],
      ['app-defs-other', 'theirs'],
    ]);
  });
});

describe('segment evaluation (in-process bus, chdb)', () => {
  it('emits one entered record; re-delivery and a restart emit nothing; the window passing emits one exited (seq 2); re-entry is seq 3', async () => {
    const app = 'app-flow';
    const { h, start, records } = await setup();
    const seg = await h.engine.definitions.create(app, { name: 'buyers', definition: buyers });
    await h.engine.scheduler.requestRecompute(app, seg.id);
    await h.engine.refresh();
    await purchases(h, app, ['u1']);
    // u2 bought once: not a member.
    await insertEvents(chdb.analytics, [userEvent(app, 'u2', 'purchase', T - HOUR)]);
    await h.engine.onInserted([{ app_id: app, user_id: 'u2', name: 'purchase' }]);
    await h.settled();
    const entered = { app_id: app, segment_id: seg.id, user_id: 'u1', change: 'entered', at: T, version: 1, seq: 1 };
    expect(await records()).toEqual([{ key: `${app}:u1`, change_id: `${seg.id}:u1:1`, change: entered }]);
    expect(await h.engine.membership.members(app, seg.id, { limit: 10 })).toEqual({ data: [{ user_id: 'u1', entered_at: iso(T) }] });
    expect(await h.engine.membership.segmentsOf(app, 'u1')).toEqual([{ segment_id: seg.id, entered_at: iso(T) }]);
    expect(await h.engine.membership.segmentsOf(app, 'u2')).toEqual([]);

    // The same work item delivered again, and a full recompute: nothing changed, nothing emitted.
    await h.sendWork({ kind: 'users', app_id: app, segment_id: seg.id, users: ['u1', 'u2'] });
    await h.settled();
    expect(await records()).toHaveLength(1);

    // A new engine on the same state and topics (a restart): nothing emitted again.
    await h.stop();
    running.splice(running.indexOf(h), 1);
    const h2 = await start();
    clock = T + 60_000;
    await h2.engine.scheduler.requestRecompute(app, seg.id);
    await h2.settled();
    expect(await records()).toHaveLength(1);

    // Two days later the purchases left the window: the scheduled pass makes u1 exit.
    clock = T + 2 * DAY;
    await h2.engine.scheduleTimeDriven();
    await h2.settled();
    const exited = { ...entered, change: 'exited', at: T + 2 * DAY, seq: 2 };
    expect(await records()).toEqual([
      { key: `${app}:u1`, change_id: `${seg.id}:u1:1`, change: entered },
      { key: `${app}:u1`, change_id: `${seg.id}:u1:2`, change: exited },
    ]);
    expect(await h2.engine.membership.members(app, seg.id, { limit: 10 })).toEqual({ data: [] });
    await h2.engine.scheduleTimeDriven();
    await h2.settled();
    expect(await records()).toHaveLength(2);

    // Buying twice again: entered once more, the third change of (segment, u1).
    clock = T + 2 * DAY + 10 * 60_000;
    await purchases(h2, app, ['u1']);
    await h2.settled();
    expect((await records()).map((r) => [r.change_id, r.change.change, r.change.at])).toEqual([
      [`${seg.id}:u1:1`, 'entered', T],
      [`${seg.id}:u1:2`, 'exited', T + 2 * DAY],
      [`${seg.id}:u1:3`, 'entered', T + 2 * DAY + 10 * 60_000],
    ]);
    expect(await h2.engine.membership.members(app, seg.id, { limit: 10 })).toEqual({ data: [{ user_id: 'u1', entered_at: iso(T + 2 * DAY + 10 * 60_000) }] });
  });

  it('dead-letters a segments.work message that is not JSON or not a work item, and goes on', async () => {
    const { bus } = await setup();
    const producer = await bus.producer();
    await producer.send(topics.segmentsWork, [
      { key: 'app-work-poison:s-1', value: Buffer.from('{'), headers: { trace: 't' } },
      { key: 'app-work-poison:s-1', value: Buffer.from('{"kind":"users","app_id":"app-work-poison"}') },
    ]);
    await producer.close();
    const letters = async () => {
      const out: DeadLetter[] = [];
      await bus.scan(topics.deadLetters, 0, (m) => {
        const r = readDeadLetter(m);
        if (r.ok) out.push(r.letter);
      });
      return out.sort((a, b) => Number(a.source.offset) - Number(b.source.offset));
    };
    const dead = await waitFor(async () => ((await letters()).length === 2 ? letters() : undefined), { timeoutMs: 10_000, what: 'two dead letters' });
    const partition = dead[0]?.source.partition;
    expect(
      dead.map(({ id, failedAt, value, ...rest }) => ({ ...rest, value: value.toString(), id: id.length, recent: Math.abs(failedAt - Date.now()) < 60_000 })),
    ).toEqual([
      {
        id: 32,
        source: { topic: topics.segmentsWork, partition, offset: '0', key: 'app-work-poison:s-1' },
        group: 'segmenter-segments',
        error: { kind: 'unreadable', message: expect.stringMatching(/^not JSON: /), retriable: false },
        processor: { name: 'segmenter-segments', version: '0.1.0' },
        headers: { trace: 't' },
        replay: null,
        value: '{',
        recent: true,
      },
      {
        id: 32,
        source: { topic: topics.segmentsWork, partition, offset: '1', key: 'app-work-poison:s-1' },
        group: 'segmenter-segments',
        error: {
          kind: 'invalid',
          message: `not a segment work item (segment_id: expected a string, got undefined): ${topics.segmentsWork}/${partition}/1`,
          retriable: false,
        },
        processor: { name: 'segmenter-segments', version: '0.1.0' },
        headers: {},
        replay: null,
        value: '{"kind":"users","app_id":"app-work-poison"}',
        recent: true,
      },
    ]);
    expect(bus.deadLetterCounts()).toEqual([{ sourceTopic: topics.segmentsWork, group: 'segmenter-segments', count: 2 }]);
  });

  it('pages through members with a cursor, in user id order', async () => {
    const app = 'app-pages';
    const { h } = await setup();
    const seg = await h.engine.definitions.create(app, { name: 'buyers', definition: buyers });
    await h.engine.refresh();
    await purchases(h, app, ['u3', 'u1', 'u5', 'u2', 'u4']);
    await h.settled();
    const first = await h.engine.membership.members(app, seg.id, { limit: 2 });
    expect(first.data.map((m) => m.user_id)).toEqual(['u1', 'u2']);
    const second = await h.engine.membership.members(app, seg.id, { limit: 2, cursor: first.cursor });
    expect(second.data.map((m) => m.user_id)).toEqual(['u3', 'u4']);
    const last = await h.engine.membership.members(app, seg.id, { limit: 2, cursor: second.cursor });
    expect(last).toEqual({ data: [{ user_id: 'u5', entered_at: iso(T) }] });
  });

  it('an update evaluates the new version at once; a deletion makes every member exit and keeps the rows as non-members', async () => {
    const app = 'app-delete';
    const { h, records } = await setup();
    const seg = await h.engine.definitions.create(app, { name: 'buyers', definition: buyers });
    await h.engine.refresh();
    await purchases(h, app, ['u1', 'u2']);
    await h.settled();
    clock = T + 1_000;
    await h.engine.definitions.update(app, seg.id, { name: 'buyers', definition: { event: 'purchase', count: { gte: 1 }, within: 'PT40M' } });
    await h.engine.scheduler.requestRecompute(app, seg.id);
    await h.settled();
    // Both still qualify under version 2 (one purchase 30 minutes ago): no change.
    expect(await records()).toHaveLength(2);
    clock = T + 2_000;
    await h.engine.definitions.delete(app, seg.id);
    await h.engine.scheduler.requestRecompute(app, seg.id);
    await h.settled();
    expect((await records()).map((r) => [r.change.user_id, r.change.change, r.change.version, r.change.seq]).sort()).toEqual([
      ['u1', 'entered', 1, 1],
      ['u1', 'exited', 3, 2],
      ['u2', 'entered', 1, 1],
      ['u2', 'exited', 3, 2],
    ]);
    const state = () =>
      chdb.analytics.query(`SELECT user_id, is_member, seq, emitted FROM segment_members FINAL WHERE app_id = {app:String} ORDER BY user_id`, { app });
    // The exits are stored at once; their emitted marks are held back for the segment's next write
    // and, none coming, written alone within a second.
    expect((await state()).map((r) => [r.user_id, r.is_member, r.seq])).toEqual([
      ['u1', false, 2],
      ['u2', false, 2],
    ]);
    await waitFor(async () => (await state()).every((r) => r.emitted), { timeoutMs: 5_000, what: 'the emitted marks' });
    expect(await state()).toEqual([
      { user_id: 'u1', is_member: false, seq: 2, emitted: true },
      { user_id: 'u2', is_member: false, seq: 2, emitted: true },
    ]);
  });

  it("never reads another app's events", async () => {
    const { h, records } = await setup();
    const seg = await h.engine.definitions.create('app-iso-a', { name: 'buyers', definition: buyers });
    await h.engine.refresh();
    // The same user id buys in another app: the rows are not this app's.
    await insertEvents(chdb.analytics, [userEvent('app-iso-b', 'u1', 'purchase', T - HOUR), userEvent('app-iso-b', 'u1', 'purchase', T - HOUR)]);
    await h.sendWork({ kind: 'users', app_id: 'app-iso-a', segment_id: seg.id, users: ['u1'] });
    await h.engine.scheduler.requestRecompute('app-iso-a', seg.id);
    await h.settled();
    expect(await records()).toEqual([]);
  });
});

describe('exactly one record per change when an evaluation stops half way', () => {
  /** A bus whose producers fail writing to the membership topic while `failing()` says so (after writing, when `afterWrite`). */
  const flakyMembership =
    (failing: () => boolean, afterWrite: boolean) =>
    (bus: Bus): Bus => ({
      ...bus,
      async producer() {
        const p = await bus.producer();
        const send: typeof p.send = async (topic, messages) => {
          const fail = topic === 'segments.membership' && failing();
          if (fail && !afterWrite) throw new InfraError('bus', 'produce failed (test)', { retriable: true });
          await p.send(topic, messages);
          if (fail) throw new InfraError('bus', 'connection lost after the write (test)', { retriable: true });
        };
        return { ...p, send };
      },
    });

  it('a crash between the state write and the records (1 → 2): the recovery publishes the change once', async () => {
    const app = 'app-crash-12';
    let failures = 1;
    const { h, records } = await setup({ busForEngine: flakyMembership(() => failures-- > 0, false) });
    const seg = await h.engine.definitions.create(app, { name: 'buyers', definition: buyers });
    await h.engine.refresh();
    await purchases(h, app, ['u1', 'u2']);
    await h.settled();
    expect((await records()).map((r) => r.change_id).sort()).toEqual([`${seg.id}:u1:1`, `${seg.id}:u2:1`]);
    expect(await recoveredChanges(h)).toEqual([
      ['found', 0],
      ['published', 2],
    ]);
    expect(await stateRows(app, true)).toBe(2);
  });

  it('a crash between the records and the emitted mark (2 → 3): the recovery finds them and publishes nothing again', async () => {
    const app = 'app-crash-23';
    let failures = 1;
    const { h, records } = await setup({ busForEngine: flakyMembership(() => failures-- > 0, true) });
    const seg = await h.engine.definitions.create(app, { name: 'buyers', definition: buyers });
    await h.engine.refresh();
    await purchases(h, app, ['u1', 'u2']);
    await h.settled();
    expect((await records()).map((r) => r.change_id).sort()).toEqual([`${seg.id}:u1:1`, `${seg.id}:u2:1`]);
    expect(await recoveredChanges(h)).toEqual([
      ['found', 2],
      ['published', 0],
    ]);
  });

  it('the emitted mark failing (3): the mark stays held and is written again, publishing nothing again', async () => {
    const app = 'app-crash-3';
    let failures = 1;
    const failingMark = watchMembersInserts((rows) => {
      if (rows[0]?.emitted && failures-- > 0) throw new InfraError('clickhouse', 'connection reset (test)', { retriable: true });
    });
    const { h, records } = await setup({ analytics: failingMark });
    const seg = await h.engine.definitions.create(app, { name: 'buyers', definition: buyers });
    await h.engine.refresh();
    await purchases(h, app, ['u1']);
    await h.settled();
    expect((await records()).map((r) => r.change_id)).toEqual([`${seg.id}:u1:1`]);
    // The held mark's first write failed; with no more work coming it is written again.
    await waitFor(async () => (await stateRows(app, true)) === 1, { timeoutMs: 10_000, what: 'the mark written after its failure' });
    expect(failures).toBeLessThan(1);
    expect((await records()).map((r) => r.change_id)).toEqual([`${seg.id}:u1:1`]);
  });

  it('holds the emitted marks back for the next write: one state insert per evaluation, nothing recovered', async () => {
    const app = 'app-marks';
    const writes: { emitted: boolean[] }[] = [];
    const counting = watchMembersInserts((rows) => writes.push({ emitted: rows.map((r) => r.emitted) }));
    const { h, records } = await setup({ analytics: counting });
    const seg = await h.engine.definitions.create(app, { name: 'buyers', definition: buyers });
    await h.engine.refresh();
    await purchases(h, app, ['u1']);
    await h.settled();
    await purchases(h, app, ['u2']);
    await h.settled();
    expect((await records()).map((r) => r.change_id).sort()).toEqual([`${seg.id}:u1:1`, `${seg.id}:u2:1`]);
    // u1's change, then u2's change with u1's mark in the same insert.
    expect(writes.slice(0, 2)).toEqual([{ emitted: [false] }, { emitted: [true, false] }]);
    // u2's mark, held with no write to ride in, is written alone within a second.
    await waitFor(() => writes.length === 3, { timeoutMs: 5_000, what: 'the held mark' });
    expect(writes[2]).toEqual({ emitted: [true] });
    expect(await recoveredChanges(h)).toEqual([]);
    expect(await stateRows(app, true)).toBe(2);
  });

  it('marks held back when a replica stops for good are recovered by the next: found on the topic, none sent twice', async () => {
    const app = 'app-marks-lost';
    // Every write of marks alone fails, as if the process died before them.
    const noMarks = watchMembersInserts((rows) => {
      if (rows.every((r) => r.emitted)) throw new InfraError('clickhouse', 'the process is gone (test)', { retriable: true });
    });
    const { h, start, records } = await setup({ analytics: noMarks });
    const seg = await h.engine.definitions.create(app, { name: 'buyers', definition: buyers });
    await h.engine.refresh();
    await purchases(h, app, ['u1', 'u2']);
    await h.settled();
    await h.stop();
    running.splice(running.indexOf(h), 1);
    expect(await stateRows(app, false)).toBe(2);
    const h2 = await start();
    await h2.sendWork({ kind: 'users', app_id: app, segment_id: seg.id, users: ['u3'] });
    await h2.settled();
    expect((await records()).map((r) => r.change_id).sort()).toEqual([`${seg.id}:u1:1`, `${seg.id}:u2:1`]);
    expect(await recoveredChanges(h2)).toEqual([
      ['found', 2],
      ['published', 0],
    ]);
    expect(await stateRows(app, true)).toBe(2);
  });

  it('a replica dead after producing (2) and replaced by another: every change once, none missing', async () => {
    const app = 'app-crash-dead';
    // The first replica's records are written, then it can do nothing more (every later write or
    // query fails), as if the process died there; its work item stays uncommitted.
    let dead = false;
    const deadAfter = (f: () => Promise<unknown>) => async () => {
      if (dead) throw new InfraError('clickhouse', 'the process is dead (test)', { retriable: true });
      return f();
    };
    const dying: Analytics = {
      ...chdb.analytics,
      query: (sql, params) => deadAfter(() => chdb.analytics.query(sql, params))() as never,
      insert: (table, rows, opts) => deadAfter(() => chdb.analytics.insert(table, rows, opts))() as Promise<void>,
    };
    const { h, start, records } = await setup({ analytics: dying, busForEngine: flakyMembership(() => (dead = true), true) });
    const seg = await h.engine.definitions.create(app, { name: 'buyers', definition: buyers });
    await h.engine.refresh();
    await insertEvents(
      chdb.analytics,
      ['u1', 'u2', 'u3'].flatMap((u) => [userEvent(app, u, 'purchase', T - HOUR), userEvent(app, u, 'purchase', T - HOUR / 2)]),
    );
    await h.engine.onInserted(['u1', 'u2', 'u3'].map((u) => ({ app_id: app, user_id: u, name: 'purchase' })));
    await waitFor(async () => (await records()).length === 3, { timeoutMs: 10_000, what: 'the records of the dying replica' });
    expect(await stateRows(app, false)).toBe(3);
    await h.stop();
    running.splice(running.indexOf(h), 1);
    // Another replica takes the partition over: its first batch is the uncommitted item.
    const h2 = await start();
    await h2.sendWork({ kind: 'users', app_id: app, segment_id: seg.id, users: ['u1'] });
    await h2.settled();
    expect((await records()).map((r) => r.change_id).sort()).toEqual([`${seg.id}:u1:1`, `${seg.id}:u2:1`, `${seg.id}:u3:1`]);
    expect(await stateRows(app, true)).toBe(3);
    expect(await recoveredChanges(h2)).toEqual([
      ['found', 3],
      ['published', 0],
    ]);
  });
});
