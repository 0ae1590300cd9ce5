import { resolve } from 'node:path';
import { z } from 'zod';
import { envFragments, parseConfig } from '@evp/core';

/**
 * The fault harness's settings. Its stack is its own, on ports apart from the shared one
 * (9092/6379/8081), so it can kill brokers and Redis without touching anyone else's work.
 */
const schema = z.object({
  FAULTS_DIR: z.string().default(resolve(__dirname, '../../../.local/faults')),
  FAULTS_KAFKA_PORT: envFragments.port.default(19092),
  FAULTS_KAFKA_CONTROLLER_PORT: envFragments.port.default(19093),
  FAULTS_REGISTRY_PORT: envFragments.port.default(18081),
  FAULTS_REDIS_PORT: envFragments.port.default(16379),
  /** Scenario j's Redis group: primary, replica and three sentinels on this port and the next four. */
  FAULTS_SENTINEL_BASE_PORT: envFragments.port.default(16380),
  /**
   * The three-node cluster of scenario k: node n's broker on FAULTS_CLUSTER_PORT+n-1, its controller on
   * FAULTS_CLUSTER_CONTROLLER_PORT+n-1 (deploy/local/stack.sh with STACK_KAFKA_NODES=3).
   */
  FAULTS_CLUSTER_PORT: envFragments.port.default(18401),
  FAULTS_CLUSTER_CONTROLLER_PORT: envFragments.port.default(18411),
  /** First of the ports the services listen on (gateway, validator, action store, sink, embedded …). */
  FAULTS_BASE_PORT: envFragments.port.default(18100),
  FAULTS_LOG_LEVEL: envFragments.logLevel.default('warn'),
  /**
   * Leave the Kafka (single or cluster) running with its data after the run, to read its topics
   * (e.g. whether acknowledged events reached ingest.raw); stop it with stack.sh down and the same
   * STACK_LOCAL_DIR (FAULTS_DIR/stack).
   */
  FAULTS_KEEP_KAFKA: z
    .enum(['0', '1'])
    .default('0')
    .transform((v) => v === '1'),
});

export type FaultsConfig = z.infer<typeof schema> & { inheritedEnv: Record<string, string | undefined> };

/** `inheritedEnv` is what child processes start from (PATH, HOME …), before their own settings. */
export const loadFaultsConfig = (env: Record<string, string | undefined> = process.env): FaultsConfig => ({
  ...parseConfig(schema, env),
  inheritedEnv: { ...env },
});
