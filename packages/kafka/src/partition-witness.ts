import type { ICustomPartitioner, RecordMetadata } from 'kafkajs';
import { InfraError } from '@evp/core';

/** A send kafkajs resolved although no broker answered for these partitions: nothing of theirs is acknowledged. */
export class UnwrittenPartitionsError extends InfraError {
  constructor(readonly partitions: string[]) {
    super('kafka', `produce resolved without an answer for ${partitions.join(', ')}`, { retriable: true });
    this.name = 'UnwrittenPartitionsError';
  }
}

/**
 * The partitions one send chose, checked against the brokers' answers it resolved with.
 *
 * Why: kafkajs 2.2.4 keeps, across the retries of one send, each broker's answer, and on a retry
 * sends only to brokers without one (`responsePerBroker` in producer/sendMessages.js). When a
 * partition's leader dies mid-send and its leadership moves to a broker that already answered for
 * other partitions of the same send, the retry sends that partition's messages nowhere, and the send
 * resolves as if all were written: an acknowledged upload lost (docs/reliability.md, "Kafka as a
 * cluster"). Its result holds one answer per partition written, so a chosen partition without one
 * is a batch never written. kafkajs does not allow an idempotent producer without retries.
 */
export function partitionWitness(inner: ICustomPartitioner) {
  const chosen = new Set<string>();
  const key = (topic: string, partition: number) => `${topic}[${partition}]`;
  const createPartitioner: ICustomPartitioner = () => {
    const partition = inner();
    return (args) => {
      const p = partition(args);
      chosen.add(key(args.topic, p));
      return p;
    };
  };
  return {
    createPartitioner,
    /** Call before each send (one send at a time per producer: serialProducer). */
    start: () => chosen.clear(),
    /** The partitions the send chose (any attempt) that no broker's answer covers, as "topic[partition]". */
    unanswered(result: Pick<RecordMetadata, 'topicName' | 'partition'>[]): string[] {
      const answered = new Set(result.map((r) => key(r.topicName, r.partition)));
      return [...chosen].filter((k) => !answered.has(k)).sort();
    },
  };
}
