import { ConfigResourceTypes, Kafka, logLevel, type Admin } from 'kafkajs';
import { toInfraError, withTimeout } from './kafka-errors';

/** One partition as the cluster's metadata reports it: node ids of its leader, replicas and in-sync replicas. */
export interface PartitionState {
  topic: string;
  partition: number;
  /** -1 while the partition has no leader. */
  leader: number;
  replicas: number[];
  isr: number[];
}

/**
 * Reads a Kafka cluster's partition placement and topic settings, for operators' tools and the fault
 * suite (which broker leads what, how many replicas are in sync). Each call is bounded by
 * `timeoutMs`; a failed connection is dropped and the next call connects anew (any broker of the
 * list answers, so a dead one is skipped).
 */
export interface KafkaClusterProbe {
  partitions(topics: string[]): Promise<PartitionState[]>;
  /** A topic's configuration value (e.g. `min.insync.replicas`), as the cluster resolves it. */
  topicConfig(topic: string, name: string): Promise<string | undefined>;
  close(): Promise<void>;
}

export function createKafkaClusterProbe(opts: { brokers: string[]; clientId: string; timeoutMs?: number }): KafkaClusterProbe {
  const timeoutMs = opts.timeoutMs ?? 5_000;
  // Silent: a probe's failure reaches its caller as an error; kafkajs's own lines would repeat it.
  const kafka = new Kafka({
    clientId: opts.clientId,
    brokers: opts.brokers,
    connectionTimeout: 1_000,
    requestTimeout: timeoutMs,
    logLevel: logLevel.NOTHING,
    retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 500 },
  });
  let admin: Admin | undefined;

  async function call<T>(what: string, fn: (a: Admin) => Promise<T>): Promise<T> {
    try {
      if (!admin) {
        const a = kafka.admin();
        await withTimeout(a.connect(), timeoutMs, 'probe connect');
        admin = a;
      }
      return await withTimeout(fn(admin), timeoutMs, what);
    } catch (err) {
      const a = admin;
      admin = undefined;
      await a?.disconnect().catch(() => undefined);
      throw toInfraError(err, what);
    }
  }

  return {
    partitions: (topics) =>
      call('fetch topic metadata', async (a) => {
        const { topics: meta } = await a.fetchTopicMetadata({ topics });
        return meta.flatMap((t) =>
          t.partitions.map((p) => ({ topic: t.name, partition: p.partitionId, leader: p.leader, replicas: [...p.replicas], isr: [...p.isr] })),
        );
      }),
    topicConfig: (topic, name) =>
      call('describe topic config', async (a) => {
        const res = await a.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: [name] }], includeSynonyms: false });
        return res.resources[0]?.configEntries.find((e) => e.configName === name)?.configValue;
      }),
    async close() {
      await admin?.disconnect().catch(() => undefined);
      admin = undefined;
    },
  };
}
