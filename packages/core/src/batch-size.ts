import { InfraError } from './errors';
import type { OutgoingRecord } from './ports/bus';

/**
 * Kafka record batch framing (v2): a 61-byte batch header, and per record its varint lengths,
 * attributes, timestamp and offset deltas. Counted generously so an estimate is never below what
 * the broker measures; the room left covers what an estimate of varints cannot see.
 */
const BATCH_OVERHEAD = 128;
const RECORD_OVERHEAD = 32;
const HEADER_OVERHEAD = 10;

/** Upper bound of one message's size inside a record batch. */
export function recordBytes(m: OutgoingRecord): number {
  let n = RECORD_OVERHEAD + (m.value === null ? 0 : m.value.length) + (m.key === undefined ? 0 : Buffer.byteLength(m.key));
  if (m.value !== null && m.headers) for (const [k, v] of Object.entries(m.headers)) n += HEADER_OVERHEAD + Buffer.byteLength(k) + Buffer.byteLength(v);
  return n;
}

/** Whether a message fits a record batch of `maxBatchBytes` on its own. */
export function fitsOneBatch(m: OutgoingRecord, maxBatchBytes: number): boolean {
  return recordBytes(m) + BATCH_OVERHEAD <= maxBatchBytes;
}

export function messageTooLarge(topic: string, m: OutgoingRecord, maxBatchBytes: number): InfraError {
  return new InfraError('bus', `a message of ${recordBytes(m)} bytes cannot fit topic ${topic}'s ${maxBatchBytes}-byte record batches`, {
    retriable: false,
  });
}

export interface TopicMessages {
  topic: string;
  messages: OutgoingRecord[];
}

/**
 * Splits a multi-topic write into consecutive writes in which each topic's messages total at most
 * its batch limit. Counting per topic rather than per partition is conservative (the partitioner
 * spreads keys over partitions afterwards), and keeps every message in its original order when the
 * writes are sent one after the other. Throws a non-retriable InfraError for a message that cannot
 * fit on its own: no split or retry can help it.
 */
export function splitToFit(entries: readonly TopicMessages[], maxBatchBytes: (topic: string) => number): TopicMessages[][] {
  const writes: TopicMessages[][] = [];
  for (const { topic, messages } of entries) {
    const limit = maxBatchBytes(topic) - BATCH_OVERHEAD;
    let slice: OutgoingRecord[] = [];
    let bytes = 0;
    let index = 0;
    const flush = () => {
      if (slice.length === 0) return;
      const write = writes[index] ?? [];
      writes[index++] = write;
      write.push({ topic, messages: slice });
      slice = [];
      bytes = 0;
    };
    for (const m of messages) {
      const size = recordBytes(m);
      if (size > limit) throw messageTooLarge(topic, m, maxBatchBytes(topic));
      if (bytes + size > limit) flush();
      slice.push(m);
      bytes += size;
    }
    flush();
  }
  return writes;
}
