import { BLOCKS, CATALOG_KINDS, type Block, type CatalogKind } from '@evp/contract';
import type { TopicSpec } from './ports/bus';

// The vocabulary topics are named by; it lives in the contract package, re-exported for topic users.
export { BLOCKS, CATALOG_KINDS, type Block, type CatalogKind };

/** Every Kafka topic name lives here; a version suffix would be added in this one place. */
export const topics = {
  raw: 'ingest.raw',
  rejected: 'ingest.rejected',
  /**
   * One receipt per raw message: the verdict (accepted / rejected, with reasons and warnings) of every
   * event or record it held, so an app can learn what became of a request (GET /v1/ingest/requests/{id}).
   */
  receipts: 'ingest.receipts',
  actionsRequested: 'actions.requested',
  /**
   * The action log: every action's creation, first delivery, withdrawal (block) and undelivered
   * expiry, relayed by the action store from its outbox (Avro, key `<app_id>:<user_id>`).
   */
  actionsLog: 'actions.log',
  /**
   * The action store's feedback: a copy of every event of FEEDBACK_EVENT_NAMES the validator writes to
   * `events.core` (the same Avro value, key and headers), written in the same durable send, so the
   * action store's feedback consumer reads a few messages instead of the whole of `events.core`
   * (docs/actions.md, "Feedback"). The sink and partners read the `events.core` original.
   */
  actionsFeedback: 'actions.feedback',
  /**
   * Messages a consumer could not handle for a reason retrying cannot cure, each with its provenance
   * (source topic, partition, offset, group, error) in headers, so the partition moves on and
   * nothing is dropped silently.
   */
  deadLetters: 'deadletters',
  /**
   * Segment evaluations to do (JSON, key `app_id:segment_id`): the segmenter replicas share them as
   * one consumer group, so the owner of a partition is the only replica evaluating its segments.
   */
  segmentsWork: 'segments.work',
  /** Every change of segment membership, once (Avro, key `app_id:user_id`; docs/segments.md). */
  segmentsMembership: 'segments.membership',
  /**
   * Campaign triggers to act on (JSON, key `app_id:campaign_id`): users of one run, or a schedule
   * occurrence to expand to a segment's members. The segmenter replicas share them as the consumer
   * group `segmenter-campaigns` (docs/campaigns.md, "Triggers and delivery").
   */
  campaignsTriggers: 'campaigns.triggers',
  /**
   * Who is suppressed (an erasure's first step; docs/privacy.md, "Erasure and export"): compacted,
   * key `<app_id>:<id_hash>` (the keyed hash of the id, never the id), value a SuppressionEntry
   * (JSON, schemas/src/suppression.ts), a tombstone (null value) when the suppression is lifted.
   * Every part reads it whole from the beginning (SuppressionSet) and refuses the person's new data.
   */
  privacySuppressions: 'privacy.suppressions',
  events: (block: Block) => `events.${block}`,
  catalog: (kind: CatalogKind) => `catalog.${kind}`,
  /** Records of every app-defined catalog kind (not in CATALOG_KINDS; schemas/src/catalogs/custom.ts). */
  customCatalog: 'catalog.custom',
} as const;

/**
 * The canonical event names copied to topics.actionsFeedback. The validator maps `action_response`
 * onto `nudge_response`; the alias is listed so an event named either way is feedback.
 */
export const FEEDBACK_EVENT_NAMES = ['nudge_response', 'action_response'] as const;

/** Whether events of this canonical name carry nudge feedback (and are copied to topics.actionsFeedback). */
export const isFeedbackEventName = (name: string): boolean => (FEEDBACK_EVENT_NAMES as readonly string[]).includes(name);

/** Kafka's default `message.max.bytes`: the largest record batch per partition a topic takes. */
export const DEFAULT_MAX_BATCH_BYTES = 1_048_588;
/**
 * ingest.raw holds one upload per message, up to the gateway's 5 MiB body plus headers and batch
 * overhead; every other topic keeps the broker default (the validator splits its output batches).
 */
export const RAW_MAX_MESSAGE_BYTES = 6 * 1024 * 1024;

/** The record batch limit of a platform topic, as ensureTopics/stack.sh configure it. */
export function topicMaxBatchBytes(topic: string): number {
  // A dead letter carries its original message, which may be a whole raw upload.
  return topic === topics.raw || topic === topics.deadLetters ? RAW_MAX_MESSAGE_BYTES : DEFAULT_MAX_BATCH_BYTES;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * How long each kind of topic keeps a message (`retention.ms`). A log cannot be edited, so this
 * bounds how long a person's data outlives its erasure in ClickHouse and Redis (docs/privacy.md,
 * "Kafka retention"): no topic keeps anything forever.
 */
export const TOPIC_RETENTION_MS = {
  /**
   * Raw uploads: the shortest that keeps replay possible over a long weekend (a validator fault
   * found on Monday can be re-run from Friday's uploads). Every rejected upload is also kept in
   * ClickHouse `rejected` with its payload, so replaying those needs no raw copy.
   */
  raw: 3 * DAY_MS,
  /** What the sink, the segment engine, the campaign worker and partners' consumers read: a week of lag or outage. */
  stream: 7 * DAY_MS,
  /** Dead letters wait for a person: two weeks to look and replay (`npm run deadletters`); ClickHouse keeps their rows too. */
  deadLetters: 14 * DAY_MS,
  /** Work items handled within seconds (segment evaluations, campaign triggers): a day covers any restart. */
  work: DAY_MS,
} as const;

/**
 * A platform topic: every one states its retention, except a compacted one, which keeps the latest
 * value of each key until a tombstone (so it must never hold a person's data: only keyed hashes).
 */
export type PlatformTopicSpec = TopicSpec & ({ retentionMs: number; compacted?: undefined } | { compacted: true; retentionMs?: undefined });

/** Every topic the platform uses, with its partition count and retention (mirrored by deploy/local/topics.txt). */
export function allTopics(): PlatformTopicSpec[] {
  const { raw, stream, deadLetters, work } = TOPIC_RETENTION_MS;
  return [
    { name: topics.raw, partitions: 3, maxMessageBytes: RAW_MAX_MESSAGE_BYTES, retentionMs: raw },
    { name: topics.rejected, partitions: 3, retentionMs: stream },
    { name: topics.receipts, partitions: 3, retentionMs: stream },
    ...BLOCKS.map((b) => ({ name: topics.events(b), partitions: 3, retentionMs: stream })),
    ...CATALOG_KINDS.map((k) => ({ name: topics.catalog(k), partitions: 1, retentionMs: stream })),
    { name: topics.customCatalog, partitions: 1, retentionMs: stream },
    { name: topics.actionsRequested, partitions: 3, retentionMs: stream },
    { name: topics.actionsLog, partitions: 3, retentionMs: stream },
    // As events.core, which it copies: the action store absorbs a week of outage like the sink.
    { name: topics.actionsFeedback, partitions: 3, retentionMs: stream },
    { name: topics.deadLetters, partitions: 3, maxMessageBytes: RAW_MAX_MESSAGE_BYTES, retentionMs: deadLetters },
    // More partitions than replicas are likely: the unit of ownership is a partition, and segments
    // spread over replicas only as far as partitions do.
    { name: topics.segmentsWork, partitions: 6, retentionMs: work },
    { name: topics.segmentsMembership, partitions: 3, retentionMs: stream },
    { name: topics.campaignsTriggers, partitions: 6, retentionMs: work },
    // Compacted, not bounded: a suppression must outlive any retention (a device may re-send an old
    // upload months later). It holds keyed hashes of ids only, which name no one without the key.
    { name: topics.privacySuppressions, partitions: 1, compacted: true },
  ];
}
