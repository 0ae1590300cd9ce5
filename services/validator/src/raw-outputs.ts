import { fitsOneBatch, isFeedbackEventName, recordBytes, topics, type BusMessage, type OutgoingMessage, type SuppressionSet } from '@evp/core';
import { catalogRecordTopic, catalogToAvro, type RejectedRecord, type Rejection } from '@evp/schemas';
import type { EncodedMessage } from './encode-pool';
import type { Framer } from './output-schemas';
import type { erasablePersonIds } from './raw-batch-processor';
import { receiptsOf, type ReceiptInput } from './receipt';
import { toRejectedRecord } from './rejected-record';

/** What a rejected record keeps when its full form cannot fit ingest.rejected's record batches. */
const MAX_REASONS_WHEN_TRIMMED = 100;
const TRIMMED_PAYLOAD_CHARS = 4 * 1024;

/** What the outputs are written with: events come framed from the pool; the rest is framed here. */
export interface OutputWriter {
  framer: Framer;
  /** The largest record batch a topic takes (Bus.maxBatchBytes). */
  maxBatchBytes: (topic: string) => number;
  /** The instant of rejected records and receipts. */
  now: () => number;
  /**
   * Suppressed (erased) people: an event or a catalog record that names one (its user, or a person
   * id at a tagged path) is dropped, counted, and in no receipt. Absent: nothing is dropped.
   */
  suppressions?: SuppressionSet;
  /** The people a catalog record names (erasablePersonIds), when there are suppressions. */
  personIds?: ReturnType<typeof erasablePersonIds>;
}

/** A raw batch's outputs by topic, and what they count once written. */
export interface BatchOutputs {
  byTopic: Map<string, OutgoingMessage[]>;
  eventsByBlock: Map<string, number>;
  catalogByKind: Map<string, number>;
  /** Events covered by rejected records, by rejection kind. */
  rejectedEventsByKind: Map<string, number>;
  /** Events (`event`) and catalog records (`catalog`) dropped for naming a suppressed person. */
  suppressed: Map<'event' | 'catalog', number>;
}

export const batchOutputs = (): BatchOutputs => ({
  byTopic: new Map(),
  eventsByBlock: new Map(),
  catalogByKind: new Map(),
  rejectedEventsByKind: new Map(),
  suppressed: new Map(),
});

/** Whether any of these people is suppressed in the app. */
const namesSuppressed = (set: SuppressionSet, appId: string, people: readonly { person: string; id: string }[]) =>
  people.some((p) => (p.person === 'user' || p.person === 'patient') && set.has(appId, p.person, p.id));

const add = (counts: Map<string, number>, key: string, n: number) => counts.set(key, (counts.get(key) ?? 0) + n);

/**
 * An output that cannot fit its topic's record batch on its own (the bus would refuse it, and no
 * retry can help) becomes a size_violation, Snowplow style, keeping a prefix of its payload.
 */
const sizeViolation = (
  w: OutputWriter,
  topic: string,
  m: OutgoingMessage,
  payload: string,
  eventIndex: number | null = null,
  name: string | null = null,
): Rejection => ({
  kind: 'size_violation',
  reasons: [
    {
      path: '$',
      rule: 'max_message_bytes',
      message: `the ${topic} record is ${recordBytes(m)} bytes; the topic takes at most ${w.maxBatchBytes(topic)}`,
    },
  ],
  payload,
  event_count: 1,
  envelope_index: null,
  event_index: eventIndex,
  event_name: name,
});
const fits = (w: OutputWriter, topic: string, m: OutgoingMessage) => fitsOneBatch(m, w.maxBatchBytes(topic));

/**
 * One raw message's encoded outcome → what it writes, added to the batch's outputs: its events to
 * their block topics, its catalog records to their kind's topic, its rejections (and every output
 * too large for its topic, as a size_violation) to ingest.rejected, and its receipts, which say what
 * became of each submitted item.
 */
export function addRawOutputs(w: OutputWriter, msg: BusMessage, outcome: EncodedMessage, out: BatchOutputs): void {
  const push = (topic: string, m: OutgoingMessage) => {
    const list = out.byTopic.get(topic);
    if (list) list.push(m);
    else out.byTopic.set(topic, [m]);
  };
  const { framer, now } = w;
  const oversized: Rejection[] = [];
  const written: ReceiptInput['events'][number][] = [];
  const writtenCatalog: ReceiptInput['catalog'][number][] = [];
  const rejectedRecords: RejectedRecord[] = [];
  // Checked only while someone is suppressed: the common case costs one size() per message.
  const set = w.suppressions && w.suppressions.size() > 0 ? w.suppressions : undefined;
  for (const e of outcome.events) {
    if (set && (set.has(e.app_id, 'user', e.user_id) || namesSuppressed(set, e.app_id, e.persons))) {
      add(out.suppressed, 'event', 1);
      continue;
    }
    const topic = topics.events(e.block);
    // `name` lets a consumer that wants a few events (the action store's feedback) skip decoding the rest.
    const m = { key: e.key, value: e.value, headers: { app_id: e.app_id, event_id: e.event_id, name: e.name } };
    if (!fits(w, topic, m)) {
      oversized.push(sizeViolation(w, topic, m, msg.value.toString('utf8'), e.event_index, e.name));
      continue;
    }
    push(topic, m);
    // The action store's copy, in the same sendBatch: the raw batch is committed only once both are
    // durable, and a repeat writes both again (the store counts a response once).
    if (isFeedbackEventName(e.name)) push(topics.actionsFeedback, m);
    written.push(e);
    add(out.eventsByBlock, e.block, 1);
  }
  for (const { record: c, index, warnings } of outcome.catalog) {
    if (set && w.personIds && namesSuppressed(set, c.app_id, w.personIds('catalog', c.kind, c.record))) {
      add(out.suppressed, 'catalog', 1);
      continue;
    }
    const topic = catalogRecordTopic(c);
    const value = framer.frame(topic, catalogToAvro(c));
    // Keyed by record so every version of one record lands on one partition, in order (the
    // app-defined kinds share their topic, so their key names the kind too).
    const m = {
      key: topic === topics.customCatalog ? `${c.app_id}:${c.kind}:${c.id}` : `${c.app_id}:${c.id}`,
      value,
      headers: { app_id: c.app_id, kind: c.kind },
    };
    if (!fits(w, topic, m)) {
      oversized.push(sizeViolation(w, topic, m, JSON.stringify(c.record) ?? 'null', index));
      continue;
    }
    push(topic, m);
    if (index !== null) writtenCatalog.push({ index, id: c.id, kind: c.kind, warnings });
    add(out.catalogByKind, c.kind, 1);
  }
  for (const r of [...outcome.rejections, ...oversized]) {
    const record = toRejectedRecord(r, outcome.ctx, msg, outcome.payloadKind, now());
    rejectedRecords.push(record);
    const toMessage = (rec: typeof record) => ({
      key: `${rec.app_id}:${rec.rejection_id}`,
      headers: { app_id: rec.app_id, kind: rec.kind },
    });
    let m: OutgoingMessage = { ...toMessage(record), value: framer.frame(topics.rejected, record) };
    if (!fits(w, topics.rejected, m)) {
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
    add(out.rejectedEventsByKind, r.kind, r.event_count);
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
}
