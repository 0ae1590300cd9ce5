import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createLogger } from '@evp/core';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import { uniqueName, useMigratedChdb, waitFor } from '@evp/testkit';
import { type EngineHarness, insertEvents, readMembership, serveAnalyticsOverIpc, startEngine, userEvent } from '../testing';

// Two segmenter replicas in one consumer group of a real Kafka broker, evaluating many segments:
// one runs in this process, the other in a child process that is killed with SIGKILL in the middle
// of an evaluation (its records produced but not marked, or its rows stored but no record
// produced). Its partitions move to the survivor, which finishes the work: every expected change is
// on the membership topic exactly once and the membership state is exact. ClickHouse is this
// process's chdb, which the child reaches over IPC.
const chdb = useMigratedChdb('segscale');
const logger = createLogger('segments-scale-it', 'silent');
const brokers = () => process.env.KAFKA_BROKERS as string;
const registryUrl = () => process.env.SCHEMA_REGISTRY_URL as string;

const SEGMENTS = 24;
const USERS = Array.from({ length: 20 }, (_, i) => `u${i}`);
/** Who performed which event: user i did `e<k>` when (7i + 3k) % 4 = 0, so each segment k has its own members. */
const does = (i: number, k: number) => (7 * i + 3 * k) % 4 === 0;

function lines(child: ChildProcess): string[] {
  const seen: string[] = [];
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => seen.push(...chunk.split('\n').filter(Boolean)));
  return seen;
}

describe('segment engine scale-out on Kafka', () => {
  it.each(['after-produce', 'after-state'])(
    'two replicas, one killed -9 mid-evaluation (%s): every change exactly once, membership exact',
    async (crashPoint) => {
      const app = uniqueName('app-scale').replace(/-/g, '_');
      const topics = { workTopic: uniqueName('seg-work'), membershipTopic: uniqueName('seg-members') };
      const groupId = uniqueName('seg-group');
      const bus = createKafkaBus({ brokers: brokers().split(','), clientId: uniqueName('seg-scale'), logger, sessionTimeoutMs: 6_000 });
      await bus.ensureTopics([
        { name: topics.workTopic, partitions: 6 },
        { name: topics.membershipTopic, partitions: 3 },
      ]);
      const registry = createConfluentRegistry({ url: registryUrl() });
      let survivor: EngineHarness | undefined;
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          join(__dirname, '../testing/replica-child.ts'),
          brokers(),
          registryUrl(),
          topics.workTopic,
          topics.membershipTopic,
          groupId,
          crashPoint,
        ],
        { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] },
      );
      serveAnalyticsOverIpc(child, chdb.analytics);
      const said = lines(child);
      try {
        survivor = await startEngine({ analytics: chdb.analytics, bus, registry, now: Date.now, config: { ...topics, groupId } });
        const engine = survivor.engine;
        // The child joins second: the group then spreads the six partitions over both.
        await waitFor(() => said.includes('ready'), { timeoutMs: 60_000, what: 'the child replica to join' });

        const ids: string[] = [];
        for (let k = 0; k < SEGMENTS; k++) ids.push((await engine.definitions.create(app, { name: `s${k}`, definition: { event: `e${k}` } })).id);
        await engine.refresh();
        const events = USERS.flatMap((u, i) => ids.flatMap((_, k) => (does(i, k) ? [userEvent(app, u, `e${k}`, Date.now() - 60_000)] : [])));
        await insertEvents(chdb.analytics, events);
        await engine.onInserted(events.map((e) => ({ app_id: app, user_id: e.user_id, name: e.name })));

        await waitFor(() => said.includes('crash-point'), { timeoutMs: 60_000, what: 'the child replica to reach its crash point' });
        child.kill('SIGKILL');

        const expected = ids.flatMap((id, k) => USERS.flatMap((u, i) => (does(i, k) ? [`${id}:${u}:1`] : []))).sort();
        const onTopic = async () => (await readMembership(bus, registry, topics.membershipTopic)).filter((r) => r.change.app_id === app);
        const pending = async () =>
          (await chdb.analytics.query<{ n: number }>('SELECT count() AS n FROM segment_members FINAL WHERE app_id = {app:String} AND NOT emitted', { app }))[0]
            ?.n;
        await waitFor(async () => (await onTopic()).length >= expected.length && (await pending()) === 0, {
          timeoutMs: 90_000,
          intervalMs: 500,
          what: `${expected.length} changes on the topic and none pending`,
        });
        const records = await onTopic();
        expect(records.map((r) => r.change_id).sort()).toEqual(expected);
        expect(
          records.every((r) => r.change.change === 'entered' && r.change.seq === 1 && r.change.version === 1 && r.key === `${app}:${r.change.user_id}`),
        ).toBe(true);

        // The survivor finished the dead replica's evaluation: its five changes were found on the
        // topic (killed after producing) or published by the recovery (killed before).
        const recovered = (await engine.metrics.getSingleMetric('segmenter_segments_recovered_changes_total')!.get()).values.map((v) => [
          v.labels.outcome,
          v.value,
        ]);
        expect(recovered.sort()).toEqual(
          crashPoint === 'after-produce'
            ? [
                ['found', 5],
                ['published', 0],
              ]
            : [
                ['found', 0],
                ['published', 5],
              ],
        );

        // A full recompute of every segment by the survivor changes nothing: the state is exact.
        const fullDone = async () =>
          (await engine.metrics.getSingleMetric('segmenter_segments_work_items_total')!.get()).values
            .filter((v) => v.labels.kind === 'full')
            .reduce((n, v) => n + v.value, 0);
        for (const id of ids) await engine.scheduler.requestRecompute(app, id);
        await waitFor(async () => (await fullDone()) >= SEGMENTS, { timeoutMs: 60_000, what: 'the full recomputes' });
        expect((await onTopic()).length).toBe(expected.length);
        for (const [k, id] of ids.entries()) {
          const members = (await engine.membership.members(app, id, { limit: 100 })).data.map((m) => m.user_id).sort();
          expect(members).toEqual(USERS.filter((_, i) => does(i, k)).sort());
        }
      } finally {
        child.kill('SIGKILL');
        await survivor?.stop();
        await bus.close();
      }
    },
    240_000,
  );
});
