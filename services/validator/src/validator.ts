import { Registry } from 'prom-client';
import {
  BLOCKS,
  DEFAULT_PRIVACY_TABLE,
  CATALOG_KINDS,
  consumerPart,
  topics,
  type ConsumerDeps,
  type BusMessage,
  type MessageBatch,
  type SchemaRegistry,
  type SubscriptionHealth,
  type PrivacyTable,
  type SuppressionSet,
} from '@evp/core';
import { createEncodePool, type EncodedMessage } from './encode-pool';
import { VALIDATOR_NAME, VALIDATOR_OPTIONS, type ValidatorConsumerConfig } from './options';
import { Framer, registerOutputSchemas } from './output-schemas';
import { createValidatorMetrics } from './metrics';
import type { PrivacyTally } from './privacy';
import { addRawOutputs, batchOutputs, type OutputWriter } from './raw-outputs';
import { erasablePersonIds } from './raw-batch-processor';

export interface ValidatorDeps extends ConsumerDeps<ValidatorConsumerConfig> {
  registry: SchemaRegistry;
  metrics?: Registry;
  /**
   * Every app's privacy policy now: the keys file's (`KeyRing.privacyTable`, current after each
   * reload), read once per batch. Without it every app has the default policy (docs/privacy.md).
   */
  privacy?: () => PrivacyTable;
  /** Suppressed (erased) users and patients: events and records naming one are dropped (docs/privacy.md). */
  suppressions?: SuppressionSet;
}

export interface RunningValidator {
  stop(): Promise<void>;
  /** The raw consumer's state: dead means the service must fail readiness and exit. */
  health(): SubscriptionHealth;
}

/**
 * Consumes ingest.raw, writes canonical events (Avro, Confluent wire format) to events.<block>,
 * catalog records to catalog.<kind> (app-defined kinds: catalog.custom) and rejected records to ingest.rejected. The raw batch's
 * offsets are committed only after every output is durable, so a crash can repeat work
 * (deterministic ids and keys make that harmless) but never lose it.
 */
export async function startValidator(deps: ValidatorDeps): Promise<RunningValidator> {
  const { config, now, life } = consumerPart(VALIDATOR_NAME, VALIDATOR_OPTIONS, deps);
  const { logger } = life;
  const schemas = await registerOutputSchemas(deps.registry);
  // Events are framed where they are normalised (the pool); what the main thread writes, here.
  const framer = new Framer(schemas);
  const metrics = deps.metrics ?? new Registry();
  const { accepted, catalogAccepted, rejectedCount, suppressedCount, privacyFields } = createValidatorMetrics(metrics);
  await life.open();
  const producer = life.producer();
  const pool = createEncodePool({ workers: config.workers, schemas, normalize: { maxEventChars: config.maxEventChars } });

  const privacy = deps.privacy ?? (() => DEFAULT_PRIVACY_TABLE);
  const writer: OutputWriter = {
    framer,
    maxBatchBytes: (topic) => deps.bus.maxBatchBytes(topic),
    now,
    ...(deps.suppressions ? { suppressions: deps.suppressions, personIds: erasablePersonIds() } : {}),
  };

  await life.consume({
    groupId: config.groupId,
    topics: [topics.raw],
    // With encode workers, a second partition's batch is encoded while the first one's outcomes are
    // assembled and produced, so the workers do not idle at each batch's end; order within a
    // partition is kept whatever the concurrency.
    concurrency: Math.max(1, pool.workers),
    fromBeginning: config.fromBeginning,
    handleBatch: async (batch: MessageBatch) => {
      const out = batchOutputs();
      const outcomes = await pool.encode(batch.messages, privacy());
      // Per app, its messages' tallies summed: one counter call per (app, class, action) and batch.
      const privacyByApp = new Map<string, PrivacyTally>();
      for (let i = 0; i < outcomes.length; i++) {
        const outcome = outcomes[i] as EncodedMessage;
        addRawOutputs(writer, batch.messages[i] as BusMessage, outcome, out);
        if (outcome.privacyFields) addTally(privacyByApp, outcome.ctx.appId ?? '', outcome.privacyFields);
        if (outcome.identifyReasons.length > 0) {
          // Event and record warnings are in the receipt; these belong to no submitted item.
          logger.debug({ requestId: outcome.ctx.requestId, problems: outcome.identifyReasons.slice(0, 20) }, 'identify made no user catalog record');
        }
      }
      await producer.sendBatch([...out.byTopic].map(([topic, messages]) => ({ topic, messages })));
      // Counted once written, per batch: a label lookup per event was a visible cost.
      for (const [block, n] of out.eventsByBlock) accepted.inc({ block }, n);
      for (const [kind, n] of out.catalogByKind) catalogAccepted.inc({ kind }, n);
      for (const [kind, n] of out.rejectedEventsByKind) rejectedCount.inc({ kind }, n);
      for (const [kind, n] of out.suppressed) suppressedCount.inc({ kind }, n);
      for (const [app_id, tally] of privacyByApp)
        for (const k in tally) {
          const [cls, action] = k.split(':') as [string, string];
          privacyFields.inc({ app_id, class: cls, action }, tally[k] as number);
        }
    },
  });
  logger.info({ blocks: BLOCKS.length, catalogKinds: CATALOG_KINDS.length, workers: pool.workers }, 'validator consuming ingest.raw');

  return {
    health: () => life.health(),
    stop: () => life.stop({ close: () => pool.close() }),
  };
}

function addTally(byApp: Map<string, PrivacyTally>, appId: string, tally: PrivacyTally): void {
  let sum = byApp.get(appId);
  if (sum === undefined) byApp.set(appId, (sum = {}));
  for (const k in tally) sum[k] = (sum[k] ?? 0) + (tally[k] as number);
}
