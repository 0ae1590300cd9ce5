import type { Registry } from 'prom-client';
import { errorMessage, topics, type BusProducer, type Logger, type OutgoingMessage, type SchemaRegistry } from '@evp/core';
import { actionLogEntrySchema, blockSubject } from '@evp/schemas';
import type { ActionLogBatch, ActionStore } from '@evp/actions';
import { createLogRelayMetrics } from './metrics';

export interface LogRelayDeps {
  store: ActionStore;
  producer: BusProducer;
  registry: SchemaRegistry;
  logger: Logger;
  metrics?: Registry;
  /** Entries per read of the outbox (whole records: the last one may pass it). Default 1,000. */
  batchMax?: number;
  /** Wait between reads while the outbox is empty. Default 200 ms. */
  idleMs?: number;
  /** First wait after a failure; doubles up to maxBackoffMs. Defaults 200 ms and 5 s. */
  backoffMs?: number;
  maxBackoffMs?: number;
}

export interface LogRelay {
  /** Lets the batch in hand finish (produce and acknowledge), then stops. */
  stop(): Promise<void>;
}

type Stage = 'read' | 'register' | 'produce' | 'ack';

/**
 * Moves the action log from the store's outbox to `actions.log`: read a batch, encode every entry
 * (Avro, Confluent wire format, schema registered as `actions.log-value`), produce it (the bus
 * resolves once it is durable: acks=all), and only then acknowledge it in the store. A failure at
 * any step retries the same batch after a back-off; a relay that dies before acknowledging leaves
 * its records to be handed out again once their lease runs out. So every entry reaches the topic at
 * least once, and its deterministic `entry_id` collapses the copies downstream (`actions_log`).
 */
export function startLogRelay(deps: LogRelayDeps): LogRelay {
  const batchMax = deps.batchMax ?? 1000;
  const idleMs = deps.idleMs ?? 200;
  const backoffMs = deps.backoffMs ?? 200;
  const maxBackoffMs = deps.maxBackoffMs ?? 5000;
  const log = deps.logger.child({ component: 'action-log-relay' });
  const store = deps.store;
  const { relayed, failures } = createLogRelayMetrics(deps.metrics, () => store.logLength());

  let stopping = false;
  let wake: (() => void) | undefined;
  // A pause that stop() cuts short; one begun after stop() returns at once.
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      if (stopping) return resolve();
      const done = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      wake = done;
    });

  let schemaId: number | undefined;
  async function encode(batch: ActionLogBatch): Promise<OutgoingMessage[]> {
    schemaId ??= await deps.registry.register(blockSubject(topics.actionsLog), actionLogEntrySchema);
    const id = schemaId;
    return Promise.all(
      batch.entries.map(async (e) => ({ key: `${e.app_id}:${e.user_id}`, value: await deps.registry.encode(id, e), headers: { app_id: e.app_id } })),
    );
  }

  async function run(): Promise<void> {
    let batch: ActionLogBatch | undefined;
    let produced = false;
    let delay = backoffMs;
    let failing = false;
    while (!stopping) {
      let stage: Stage = 'read';
      try {
        if (!batch) {
          const read = await store.readLog(batchMax);
          if (read.acks.length === 0) {
            await pause(idleMs);
            continue;
          }
          batch = read;
          produced = false;
        }
        if (!produced && batch.entries.length > 0) {
          stage = schemaId === undefined ? 'register' : 'produce';
          const messages = await encode(batch);
          stage = 'produce';
          await deps.producer.send(topics.actionsLog, messages);
          produced = true;
        }
        stage = 'ack';
        await store.ackLog(batch.acks);
        for (const e of batch.entries) relayed.inc({ kind: e.kind });
        batch = undefined;
        delay = backoffMs;
        if (failing) log.info('action log relay works again');
        failing = false;
      } catch (err) {
        failures.inc({ stage });
        // One warning per outage, not one per attempt.
        if (!failing) log.warn({ err, stage, delayMs: delay }, `action log relay failed to ${stage}, retrying the same batch: ${errorMessage(err)}`);
        failing = true;
        await pause(delay);
        delay = Math.min(delay * 2, maxBackoffMs);
      }
    }
  }

  const running = run();
  log.info({ batchMax, idleMs }, 'action log relay started');
  return {
    async stop() {
      stopping = true;
      wake?.();
      await running;
      log.info('action log relay stopped');
    },
  };
}
