import { Counter, Registry } from 'prom-client';
import {
  BLOCKS,
  CATALOG_KINDS,
  topics,
  type Block,
  type Bus,
  type BusMessage,
  type BusProducer,
  type Logger,
  type MessageBatch,
  type OutgoingMessage,
  type SchemaRegistry,
  type Subscription,
} from '@evp/core';
import {
  blockEventSchema,
  blockSubject,
  canonicalToAvro,
  catalogSchema,
  catalogSubject,
  catalogToAvro,
  rejectedRecordSchema,
  type ClientJsonMemo,
  type NormalizeOptions,
} from '@evp/schemas';
import { processRawMessage } from './process-raw';
import { toRejectedRecord } from './rejected-record';

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
}

export interface RunningValidator {
  stop(): Promise<void>;
}

/**
 * Consumes ingest.raw, writes canonical events (Avro, Confluent wire format) to events.<block>,
 * catalog records to catalog.<kind> and rejected records to ingest.rejected. The raw batch's
 * offsets are committed only after every output is durable, so a crash can repeat work
 * (deterministic ids and keys make that harmless) but never lose it.
 */
export async function startValidator(deps: ValidatorDeps): Promise<RunningValidator> {
  const now = deps.now ?? Date.now;
  const schemaIds = new Map<string, number>();
  for (const block of BLOCKS) {
    const topic = topics.events(block);
    schemaIds.set(topic, await deps.registry.register(blockSubject(topic), blockEventSchema(block) as object));
  }
  // Every catalog schema is registered up front, like the block schemas: an incompatible change
  // fails the start, not the first catalog submission hours later.
  for (const kind of CATALOG_KINDS) {
    schemaIds.set(topics.catalog(kind), await deps.registry.register(catalogSubject(kind), catalogSchema(kind) as object));
  }
  const rejectedId = await deps.registry.register(blockSubject(topics.rejected), rejectedRecordSchema);
  const metrics = deps.metrics ?? new Registry();
  const accepted = new Counter({ name: 'validator_events_accepted_total', help: 'Canonical events written', labelNames: ['block'], registers: [metrics] });
  const catalogAccepted = new Counter({ name: 'validator_catalog_records_accepted_total', help: 'Catalog records written', labelNames: ['kind'], registers: [metrics] });
  const rejectedCount = new Counter({ name: 'validator_events_rejected_total', help: 'Events covered by rejected records', labelNames: ['kind'], registers: [metrics] });
  const producer: BusProducer = await deps.bus.producer();

  async function handleMessage(msg: BusMessage, out: Map<string, OutgoingMessage[]>) {
    const outcome = processRawMessage(msg, deps.normalize);
    const push = (topic: string, m: OutgoingMessage) => {
      const list = out.get(topic) ?? [];
      list.push(m);
      out.set(topic, list);
    };
    // The events of one message share their envelope's `client`: its JSON is computed once.
    const clientJson: ClientJsonMemo = new Map();
    for (const e of outcome.events) {
      const topic = topics.events(e.block as Block);
      const value = await deps.registry.encode(schemaIds.get(topic) as number, canonicalToAvro(e, clientJson));
      push(topic, { key: `${e.app_id}:${e.user_id}`, value, headers: { app_id: e.app_id, event_id: e.event_id } });
      accepted.inc({ block: e.block });
    }
    for (const c of outcome.catalog) {
      const topic = topics.catalog(c.kind);
      const value = await deps.registry.encode(schemaIds.get(topic) as number, catalogToAvro(c));
      // Keyed by record so every version of one record lands on one partition, in order.
      push(topic, { key: `${c.app_id}:${c.id}`, value, headers: { app_id: c.app_id, kind: c.kind } });
      catalogAccepted.inc({ kind: c.kind });
    }
    for (const r of outcome.rejections) {
      const record = toRejectedRecord(r, outcome.ctx, msg, outcome.payloadKind, now());
      push(topics.rejected, {
        key: `${record.app_id}:${record.rejection_id}`,
        value: await deps.registry.encode(rejectedId, record),
        headers: { app_id: record.app_id, kind: record.kind },
      });
      rejectedCount.inc({ kind: r.kind }, r.event_count);
    }
    if (outcome.warnings.length > 0) {
      deps.logger.debug({ requestId: outcome.ctx.requestId, warnings: outcome.warnings.slice(0, 20) }, 'accepted with warnings');
    }
  }

  const subscription: Subscription = await deps.bus.subscribe({
    groupId: deps.groupId ?? 'validator',
    topics: [topics.raw],
    ...(deps.fromBeginning === undefined ? {} : { fromBeginning: deps.fromBeginning }),
    handleBatch: async (batch: MessageBatch) => {
      const out = new Map<string, OutgoingMessage[]>();
      for (const msg of batch.messages) await handleMessage(msg, out);
      await producer.sendBatch([...out].map(([topic, messages]) => ({ topic, messages })));
    },
  });
  deps.logger.info({ blocks: BLOCKS.length, catalogKinds: CATALOG_KINDS.length }, 'validator consuming ingest.raw');

  return {
    async stop() {
      await subscription.stop();
      await producer.close();
    },
  };
}
