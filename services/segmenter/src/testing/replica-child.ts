import { createLogger, type Analytics, type Bus } from '@evp/core';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import { createSegmentEngine } from '../segments';
import { handCompile } from './hand-compiler';
import { analyticsOverIpc } from './ipc-analytics';

/**
 * A segmenter replica in its own process, for the scale-out test to kill -9 in the middle of an
 * evaluation: argv brokers, registry URL, work topic, membership topic, group, crash point.
 * It reaches ClickHouse (the parent's chdb) over IPC and Kafka and the registry directly. At its
 * crash point it prints `crash-point` and stops making progress (the parent then kills it):
 * - `after-produce`: its first membership records are on the topic, their rows not yet marked emitted;
 * - `after-state`: its first changed rows are stored (emitted = false), their records not produced.
 * Prints `ready` once it is in the work group.
 */
const [brokers, registryUrl, workTopic, membershipTopic, groupId, crashPoint] = process.argv.slice(2) as [string, string, string, string, string, string];
const logger = createLogger('segments-replica-child', 'silent');
const hang = async (): Promise<never> => {
  process.stdout.write('crash-point\n');
  return new Promise<never>(() => undefined);
};

const ipc = analyticsOverIpc(process);
const analytics: Analytics = {
  ...ipc,
  async insert(table, rows, opts) {
    await ipc.insert(table, rows, opts);
    if (crashPoint === 'after-state' && table === 'segment_members' && !(rows[0] as { emitted: boolean }).emitted) await hang();
  },
};
const kafka = createKafkaBus({ brokers: brokers.split(','), clientId: 'segments-replica-child', logger, sessionTimeoutMs: 6_000 });
const bus: Bus = {
  ...kafka,
  async producer() {
    const p = await kafka.producer();
    return {
      ...p,
      async send(topic, messages) {
        await p.send(topic, messages);
        if (crashPoint === 'after-produce' && topic === membershipTopic) await hang();
      },
    };
  },
};
const engine = createSegmentEngine({
  analytics,
  bus,
  registry: createConfluentRegistry({ url: registryUrl, clientId: 'segments-replica-child' }),
  logger,
  compile: handCompile,
  config: { groupId, workTopic, membershipTopic, recomputeIntervalMs: 0, refreshIntervalMs: 0 },
});
engine.start().then(
  () => process.stdout.write('ready\n'),
  (err: unknown) => {
    console.error(`replica-child: start failed: ${(err as Error).message}`);
    process.exit(1);
  },
);
