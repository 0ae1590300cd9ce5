import pino from 'pino';
import { InfraError } from '@evp/core';
import { uniqueName } from '@evp/testkit';
import { createKafkaClusterProbe } from './cluster-probe';
import { createKafkaBus } from './kafka-bus';

const brokers = (process.env.KAFKA_BROKERS as string).split(',');
const logger = pino({ level: 'silent' });

/**
 * ensureTopics takes its replication from the options (a cluster's 3 and 2); the local stack has one
 * broker, so what is checked here is that both settings reach Kafka: the topic config holds
 * min.insync.replicas, and a factor the brokers cannot hold is refused. (What min.insync.replicas 2
 * does with one replica left is the fault suite's scenario k, on three brokers.)
 */
describe('ensureTopics with replication settings', () => {
  const probe = createKafkaClusterProbe({ brokers, clientId: uniqueName('replication-it') });
  afterAll(() => probe.close());

  it('creates topics with min.insync.replicas beside their own limits, and keeps it when the limits are re-applied', async () => {
    const bus = createKafkaBus({
      brokers,
      clientId: uniqueName('replication-it'),
      logger,
      produceTimeoutMs: 3_000,
      replication: { factor: 1, minInsyncReplicas: 2 },
    });
    try {
      const topic = uniqueName('min-isr');
      await bus.ensureTopics([{ name: topic, partitions: 2, maxMessageBytes: 2_000_000 }]);
      expect(await probe.topicConfig(topic, 'min.insync.replicas')).toBe('2');
      expect(await probe.topicConfig(topic, 'max.message.bytes')).toBe('2000000');
      expect((await probe.partitions([topic])).map((p) => [p.partition, p.replicas.length, p.isr.length]).sort()).toEqual([
        [0, 1, 1],
        [1, 1, 1],
      ]);
      // Existing topics keep it when ensureTopics re-applies their limits.
      await bus.ensureTopics([{ name: topic, partitions: 2, maxMessageBytes: 3_000_000 }]);
      expect([await probe.topicConfig(topic, 'min.insync.replicas'), await probe.topicConfig(topic, 'max.message.bytes')]).toEqual(['2', '3000000']);
    } finally {
      await bus.close();
    }
  });

  it('sets each topic’s retention.ms on creation, and on a topic that existed without one', async () => {
    const bus = createKafkaBus({ brokers, clientId: uniqueName('retention-it'), logger, produceTimeoutMs: 3_000 });
    try {
      const created = uniqueName('retention-new');
      const older = uniqueName('retention-old');
      // A topic as an older version (or stack.sh before retention) made it: the broker's default.
      await bus.ensureTopics([{ name: older, partitions: 1 }]);
      const brokerDefault = await probe.topicConfig(older, 'retention.ms');
      expect(brokerDefault).toMatch(/^\d+$/);
      expect(brokerDefault).not.toBe('259200000');
      await bus.ensureTopics([
        { name: created, partitions: 1, retentionMs: 86_400_000 },
        { name: older, partitions: 1, retentionMs: 259_200_000 },
      ]);
      expect([await probe.topicConfig(created, 'retention.ms'), await probe.topicConfig(older, 'retention.ms')]).toEqual(['86400000', '259200000']);
    } finally {
      await bus.close();
    }
  });

  it('creates nothing when the replication factor exceeds the brokers', async () => {
    const bus = createKafkaBus({ brokers, clientId: uniqueName('replication-it'), logger, replication: { factor: brokers.length + 1 } });
    try {
      const topic = uniqueName('rf-too-high');
      await expect(bus.ensureTopics([{ name: topic, partitions: 1 }])).rejects.toBeInstanceOf(InfraError);
      expect(await bus.listTopics()).not.toContain(topic);
    } finally {
      await bus.close();
    }
  });
});
