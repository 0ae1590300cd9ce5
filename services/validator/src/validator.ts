import { Counter, Registry } from 'prom-client';
import {
  BLOCKS,
  CATALOG_KINDS,
  consumerPart,
  fitsOneBatch,
  recordBytes,
  topics,
  type ConsumerDeps,
  type BusMessage,
  type MessageBatch,
  type OutgoingMessage,
  type SchemaRegistry,
  type SubscriptionHealth,
} from '@evp/core';
import { catalogRecordTopic, catalogToAvro, type RejectedRecord, type Rejection } from '@evp/schemas';
import { createEncodePool, type EncodedMessage } from './encode-pool';
import { VALIDATOR_NAME, VALIDATOR_OPTIONS, type ValidatorConsumerConfig } from './options';
import { Framer, registerOutputSchemas } from './output-schemas';
import { receiptsOf, type ReceiptInput } from './receipt';
import { toRejectedRecord } from './rejected-record';

export interface ValidatorDeps extends ConsumerDeps<ValidatorConsumerConfig> {
  registry: SchemaRegistry;
  metrics?: Registry;
}

/** What a rejected record keeps when its full form cannot fit ingest.rejected's record batches. */
const MAX_REASONS_WHEN_TRIMMED = 100;
const TRIMMED_PAYLOAD_CHARS = 4 * 1024;

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
  const accepted = new Counter({ name: 'validator_events_accepted_total', help: 'Canonical events written', labelNames: ['block'], registers: [metrics] });
  const catalogAccepted = new Counter({
    name: 'validator_catalog_records_accepted_total',
    help: 'Catalog records written',
    labelNames: ['kind'],
    registers: [metrics],
  });
  const rejectedCount = new Counter({
    name: 'validator_events_rejected_total',
    help: 'Events covered by rejected records',
    labelNames: ['kind'],
    registers: [metrics],
  });
  await life.open();
  const producer = life.producer();
  const pool = createEncodePool({ workers: config.workers, schemas, normalize: { maxEventChars: config.maxEventChars } });

  /**
   * An output that cannot fit its topic's record batch on its own (the bus would refuse it, and no
   * retry can help) becomes a size_violation, Snowplow style, keeping a prefix of its payload.
   */
  const sizeViolation = (topic: string, m: OutgoingMessage, payload: string, eventIndex: number | null = null, name: string | null = null): Rejection => ({
    kind: 'size_violation',
    errors: [
      {
        path: '$',
        rule: 'max_message_bytes',
        message: `the ${topic} record is ${recordBytes(m)} bytes; the topic takes at most ${deps.bus.maxBatchBytes(topic)}`,
      },
    ],
    payload,
    event_count: 1,
    envelope_index: null,
    event_index: eventIndex,
    event_name: name,
  });
  const fits = (topic: string, m: OutgoingMessage) => fitsOneBatch(m, deps.bus.maxBatchBytes(topic));

  function handleMessage(msg: BusMessage, outcome: EncodedMessage, out: Map<string, OutgoingMessage[]>, perBlock: Map<string, number>) {
    const push = (topic: string, m: OutgoingMessage) => {
      const list = out.get(topic) ?? [];
      list.push(m);
      out.set(topic, list);
    };
    const oversized: Rejection[] = [];
    const written: ReceiptInput['events'][number][] = [];
    const writtenCatalog: ReceiptInput['catalog'][number][] = [];
    const rejectedRecords: RejectedRecord[] = [];
    for (const e of outcome.events) {
      const topic = topics.events(e.block);
      // `name` lets a consumer that wants a few events (the action store's feedback) skip decoding the rest.
      const m = { key: e.key, value: e.value, headers: { app_id: e.app_id, event_id: e.event_id, name: e.name } };
      if (!fits(topic, m)) {
        oversized.push(sizeViolation(topic, m, msg.value.toString('utf8'), e.event_index, e.name));
        continue;
      }
      push(topic, m);
      written.push(e);
      perBlock.set(e.block, (perBlock.get(e.block) ?? 0) + 1);
    }
    for (const { record: c, index, warnings } of outcome.catalog) {
      const topic = catalogRecordTopic(c);
      const value = framer.frame(topic, catalogToAvro(c));
      // Keyed by record so every version of one record lands on one partition, in order (the
      // app-defined kinds share their topic, so their key names the kind too).
      const m = {
        key: topic === topics.customCatalog ? `${c.app_id}:${c.kind}:${c.id}` : `${c.app_id}:${c.id}`,
        value,
        headers: { app_id: c.app_id, kind: c.kind },
      };
      if (!fits(topic, m)) {
        oversized.push(sizeViolation(topic, m, JSON.stringify(c.record) ?? 'null', index));
        continue;
      }
      push(topic, m);
      if (index !== null) writtenCatalog.push({ index, id: c.id, kind: c.kind, warnings });
      catalogAccepted.inc({ kind: c.kind });
    }
    for (const r of [...outcome.rejections, ...oversized]) {
      const record = toRejectedRecord(r, outcome.ctx, msg, outcome.payloadKind, now());
      rejectedRecords.push(record);
      const toMessage = (rec: typeof record) => ({
        key: `${rec.app_id}:${rec.rejection_id}`,
        headers: { app_id: rec.app_id, kind: rec.kind },
      });
      let m: OutgoingMessage = { ...toMessage(record), value: framer.frame(topics.rejected, record) };
      if (!fits(topics.rejected, m)) {
        // Thousands of reasons can outgrow a record batch: keep the first ones and a short prefix.
        // Were even that too large, the bus refuses it and the consumer guard dead-letters the raw message.
        const trimmed = {
          ...record,
          errors: record.errors.slice(0, MAX_REASONS_WHEN_TRIMMED),
          payload: record.payload.slice(0, TRIMMED_PAYLOAD_CHARS),
          payload_truncated: true,
        };
        m = { ...toMessage(trimmed), value: framer.frame(topics.rejected, trimmed) };
      }
      push(topics.rejected, m);
      rejectedCount.inc({ kind: r.kind }, r.event_count);
    }
    for (const receipt of receiptsOf({
      ctx: outcome.ctx,
      payloadKind: outcome.payloadKind,
      envelope: outcome.envelope,
      processedAt: now(),
      events: written,
      catalog: writtenCatalog,
      rejected: rejectedRecords,
    })) {
      push(topics.receipts, {
        key: `${receipt.app_id}:${receipt.request_id}`,
        value: framer.frame(topics.receipts, receipt),
        headers: { app_id: receipt.app_id },
      });
    }
    if (outcome.identifyProblems.length > 0) {
      // Event and record warnings are in the receipt; these belong to no submitted item.
      logger.debug({ requestId: outcome.ctx.requestId, problems: outcome.identifyProblems.slice(0, 20) }, 'identify made no user catalog record');
    }
  }

  await life.consume({
    groupId: config.groupId,
    topics: [topics.raw],
    // With encode workers, a second partition's batch is encoded while the first one's outcomes are
    // assembled and produced, so the workers do not idle at each batch's end; order within a
    // partition is kept whatever the concurrency.
    concurrency: Math.max(1, pool.workers),
    fromBeginning: config.fromBeginning,
    handleBatch: async (batch: MessageBatch) => {
      const out = new Map<string, OutgoingMessage[]>();
      const perBlock = new Map<string, number>();
      const outcomes = await pool.encode(batch.messages);
      for (let i = 0; i < outcomes.length; i++) handleMessage(batch.messages[i] as BusMessage, outcomes[i] as EncodedMessage, out, perBlock);
      await producer.sendBatch([...out].map(([topic, messages]) => ({ topic, messages })));
      // Counted once written, per batch: a label lookup per event was a visible cost.
      for (const [block, n] of perBlock) accepted.inc({ block }, n);
    },
  });
  logger.info({ blocks: BLOCKS.length, catalogKinds: CATALOG_KINDS.length, workers: pool.workers }, 'validator consuming ingest.raw');

  return {
    health: () => life.health(),
    stop: () => life.stop({ close: () => pool.close() }),
  };
}
