import type { PartitionerArgs } from 'kafkajs';
import { InfraError } from '@evp/core';
import { UnwrittenPartitionsError, partitionWitness } from './partition-witness';

const args = (topic: string, key: string): PartitionerArgs => ({ topic, partitionMetadata: [], message: { key, value: 'v' } });

describe('partitionWitness', () => {
  // Partition = the key's number: what the wrapped partitioner chose is what the witness records.
  const byKey = () => (a: PartitionerArgs) => Number(a.message.key);

  it('names the partitions a send chose that no broker answered for (kafkajs skipped them on a retry)', () => {
    const w = partitionWitness(byKey);
    const partition = w.createPartitioner();
    w.start();
    expect([partition(args('ingest.raw', '0')), partition(args('ingest.raw', '1')), partition(args('events.core', '2'))]).toEqual([0, 1, 2]);
    // Broker A answered for ingest.raw[0] and events.core[2]; ingest.raw[1] moved to A on the retry and was never sent.
    expect(
      w.unanswered([
        { topicName: 'ingest.raw', partition: 0 },
        { topicName: 'events.core', partition: 2 },
      ]),
    ).toEqual(['ingest.raw[1]']);
    expect(
      w.unanswered([
        { topicName: 'ingest.raw', partition: 0 },
        { topicName: 'ingest.raw', partition: 1 },
        { topicName: 'events.core', partition: 2 },
      ]),
    ).toEqual([]);
  });

  it('forgets the previous send at start()', () => {
    const w = partitionWitness(byKey);
    const partition = w.createPartitioner();
    w.start();
    partition(args('t', '5'));
    w.start();
    partition(args('t', '1'));
    expect(w.unanswered([{ topicName: 't', partition: 1 }])).toEqual([]);
  });

  it('UnwrittenPartitionsError is a retriable Kafka failure naming the partitions', () => {
    const err = new UnwrittenPartitionsError(['events.core[1]', 'ingest.receipts[2]']);
    expect(err).toBeInstanceOf(InfraError);
    expect(err.retriable).toBe(true);
    expect(err.message).toBe('kafka: produce resolved without an answer for events.core[1], ingest.receipts[2]');
  });
});
