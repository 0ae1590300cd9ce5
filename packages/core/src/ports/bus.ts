import type { ConsumerLag } from '../consumer-lag';
import type { DeadLetterCount, Processor } from '../dead-letter';

/**
 * Bus port: a partitioned, durable log with consumer groups (Kafka, or the in-process log).
 * Contract (checked by the bus conformance suite against both adapters):
 * - `send` resolves only once every message is durable (Kafka: acks=all, idempotent producer).
 * - Messages with the same key keep their order within a topic.
 * - A batch handler that resolves commits the batch's offsets; one that throws causes the batch to be
 *   delivered again (at-least-once), so handlers must be idempotent or deduplicate.
 * - A group resumes from its committed offsets; different groups each see every message.
 * - `sendBatch` of any number of messages succeeds however large their total: it is split into
 *   writes whose record batch per partition stays under the topic's limit (`maxBatchBytes`), sent in
 *   order. One message that cannot fit on its own fails with a non-retriable InfraError.
 * - A handler error no retry can cure (a non-retriable InfraError or any other exception) never
 *   stops the consumer: the failing message is isolated, written to `deadletters` in the one
 *   envelope (dead-letter.ts), and committed past only once that write is durable
 *   (consumer-guard.ts). A retriable InfraError redelivers the batch.
 * - Every dead letter a bus's producers write is counted by source topic and group (`deadLetterCounts`).
 * - Every group's lag on every partition it consumed is reported after each batch it handled (`consumerLag`).
 * - A consumer that stops for good reports it: `health()` turns dead and `onDead` is called once.
 */
export interface TopicSpec {
  name: string;
  partitions: number;
  /** Kafka topic config `max.message.bytes`; the broker default when absent. */
  maxMessageBytes?: number;
  /** Kafka topic config `retention.ms`; the broker default when absent (every platform topic sets it). */
  retentionMs?: number;
  /**
   * Kafka `cleanup.policy=compact`: the log keeps the latest value of each key, and a tombstone
   * (a message whose value is null) removes the key.
   */
  compacted?: boolean;
}

export interface OutgoingMessage {
  key?: string;
  value: Buffer;
  headers?: Record<string, string>;
}

/** A message without a value: on a compacted topic it removes its key (`follow` reports it as null). */
export interface Tombstone {
  key: string;
  value: null;
}

/** What a producer writes: a message, or a tombstone for a compacted topic. */
export type OutgoingRecord = OutgoingMessage | Tombstone;

export const isTombstone = (m: OutgoingRecord): m is Tombstone => m.value === null;

export interface BusMessage {
  topic: string;
  partition: number;
  /** Decimal string, as Kafka clients expose offsets. */
  offset: string;
  key: string | null;
  value: Buffer;
  headers: Record<string, string>;
  /** Epoch ms the log accepted the message. */
  timestamp: number;
}

export interface MessageBatch {
  topic: string;
  partition: number;
  messages: BusMessage[];
  /**
   * The offset the partition's next message will get, as of the fetch (Kafka's high watermark):
   * the consumer's lag in messages after this batch is highWatermark − last offset − 1.
   */
  highWatermark: string;
}

export interface SubscribeOptions {
  groupId: string;
  topics: string[];
  /** Where a group without committed offsets starts. Default: earliest. */
  fromBeginning?: boolean;
  /**
   * Batches of different partitions handled at once (default 1). Order within a partition is kept
   * whatever the value; a higher one lets a consumer merge several partitions' work (e.g. one insert).
   */
  concurrency?: number;
  handleBatch: (batch: MessageBatch) => Promise<void>;
  /** The consuming component, named in its dead letters (dead-letter.ts). Default: the group id. */
  processor?: Processor;
  /**
   * Called once when the consumer has stopped for good (the client gave up, not `stop()`): the
   * service must fail readiness and exit so an orchestrator restarts it.
   */
  onDead?: (error: Error) => void;
}

export type SubscriptionHealth = { state: 'running' } | { state: 'stopped' } | { state: 'dead'; error: string };

export interface Subscription {
  /** Stops fetching, lets the in-flight batch finish, leaves the group. */
  stop(): Promise<void>;
  health(): SubscriptionHealth;
}

export interface BusProducer {
  send(topic: string, messages: OutgoingRecord[]): Promise<void>;
  /** Several topics in one durable write. */
  sendBatch(entries: { topic: string; messages: OutgoingRecord[] }[]): Promise<void>;
  close(): Promise<void>;
}

/** A topic being followed (`Bus.follow`). */
export interface Following {
  /** Resolves once every partition was read up to its end as of the call. */
  caughtUp: Promise<void>;
  stop(): Promise<void>;
}

export interface Bus {
  producer(): Promise<BusProducer>;
  /**
   * The largest record batch one partition of `topic` accepts, in bytes (Kafka: the topic's
   * `max.message.bytes`). A message must fit on its own with the batch overhead (fitsOneBatch).
   */
  maxBatchBytes(topic: string): number;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /**
   * Creates topics that do not exist yet (idempotent); a topic given a `maxMessageBytes` gets that
   * limit, also when it exists already.
   */
  ensureTopics(topics: TopicSpec[]): Promise<void>;
  /**
   * Reads a topic back without joining a consumer group or committing anything: every message of
   * every partition from the first one the log accepted at or after `fromTimestampMs` up to the
   * partition's end as of the call (messages written meanwhile are not visited), in offset order
   * within a partition. For rare look-backs (the segment engine's crash recovery checks which
   * membership changes reached the log), not for consuming.
   */
  scan(topic: string, fromTimestampMs: number, visit: (message: BusMessage) => void | Promise<void>): Promise<void>;
  /**
   * Reads a compacted topic whole from its first message, without a consumer group (nothing is
   * committed: every caller sees all of it), then keeps following it: `visit` gets each message's key
   * and value in log order within a partition, null for a tombstone. The in-process bus keeps only
   * the latest value of each key of a compacted topic, as Kafka's compaction ends up doing.
   */
  follow(topic: string, visit: (key: string, value: Buffer | null) => void): Promise<Following>;
  /** Dead letters this bus wrote durably since it was made, by source topic and group (for /metrics). */
  deadLetterCounts(): DeadLetterCount[];
  /** Each consumer group's lag per partition as of the last batch it handled here (for /metrics). */
  consumerLag(): ConsumerLag[];
  /** Names of existing topics; throws a retriable InfraError when the bus is unreachable. */
  listTopics(): Promise<string[]>;
  close(): Promise<void>;
}
