import { Registry } from 'prom-client';
import {
  processorOf,
  BLOCKS,
  CATALOG_KINDS,
  fitsOneBatch,
  recordBytes,
  topics,
  type Bus,
  type BusMessage,
  type BusProducer,
  type Logger,
  type MessageBatch,
  type OutgoingMessage,
  type SchemaRegistry,
  type Subscription,
  type SubscriptionHealth,
} from '@evp/core';
import { catalogRecordTopic, catalogToAvro, type NormalizeOptions, type RejectedRecord, type Rejection } from '@evp/schemas';
import { createEncodePool, type EncodedMessage } from './encode-pool';
import { Framer, registerOutputSchemas } from './output-schemas';
import { receiptsOf, type ReceiptInput } from './receipt';
import { toRejectedRecord } from './rejected-record';
import { createValidatorMetrics } from './metrics';

export interface ValidatorDeps {
  bus: Bus;
  registry: SchemaRegistry;
  logger: Logger;
  normalize: NormalizeOptions;
  groupId?: string;
  /**
   * Where a group without committed offsets starts. Default: earliest, so a new deployment never
   * skips what the gateway already acknowledged; tests on a shared broker start at the end.
   */
  fromBeginning?: boolean;
  metrics?: Registry;
  now?: () => number;
  /** Worker threads that normalise and encode (encode-pool.ts); 0 (the default) works inline. */
  workers?: number;
  /** Called once if the raw consumer stops for good (see Subscription). */
  onDead?: (error: Error) => void;
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
  const now = deps.now ?? Date.now;
  const schemas = await registerOutputSchemas(deps.registry);
  // Events are framed where they are normalised (the pool); what the main thread writes, here.
  const framer = new Framer(schemas);
  const metrics = deps.metrics ?? new Registry();
  const { accepted, catalogAccepted, rejectedCount } = createValidatorMetrics(metrics);
  const producer: BusProducer = await deps.bus.producer();
  const pool = createEncodePool({ workers: deps.workers ?? 0, schemas, normalize: deps.normalize });

  /**
   * An output that cannot fit its topic's record batch on its own (the bus would refuse it, and no
   * retry can help) becomes a size_violation, Snowplow style, keeping a prefix of its payload.
   */
  const sizeViolation = (topic: string, m: OutgoingMessage, payload: string, eventIndex: number | null = null, name: string | null = null): Rejection => ({
    kind: 'size_violation',
    reasons: [
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
    if (outcome.identifyReasons.length > 0) {
      // Event and record warnings are in the receipt; these belong to no submitted item.
      deps.logger.debug({ requestId: outcome.ctx.requestId, problems: outcome.identifyReasons.slice(0, 20) }, 'identify made no user catalog record');
    }
  }

  const subscription: Subscription = await deps.bus.subscribe({
    groupId: deps.groupId ?? 'validator',
    topics: [topics.raw],
    processor: processorOf('validator'),
    // With encode workers, a second partition's batch is encoded while the first one's outcomes are
    // assembled and produced, so the workers do not idle at each batch's end; order within a
    // partition is kept whatever the concurrency.
    concurrency: Math.max(1, pool.workers),
    ...(deps.fromBeginning === undefined ? {} : { fromBeginning: deps.fromBeginning }),
    ...(deps.onDead ? { onDead: deps.onDead } : {}),
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
  deps.logger.info({ blocks: BLOCKS.length, catalogKinds: CATALOG_KINDS.length, workers: pool.workers }, 'validator consuming ingest.raw');

  return {
    health: () => subscription.health(),
    async stop() {
      await subscription.stop();
      await producer.close();
      await pool.close();
    },
  };
}
