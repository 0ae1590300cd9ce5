import { join } from 'node:path';
import { loadFaultsConfig } from '../../dev/src/faults/config';
import { awaitAllStored } from '../../dev/src/faults/counts';
import { Harness, KEYS } from '../../dev/src/faults/harness';
import { startLoad } from '../../dev/src/faults/load';

/**
 * The fault suite's harness (dev/src/faults) for a benchmark: every stage in its own process on a
 * Kafka broker, registry and Redis of its own, on ports 1,000 above the fault suite's, so a bench
 * and a fault run never meet (two benches do: run one at a time). `dir` names its directory.
 */
export function benchHarness(dir: string): { harness: Harness; brokers: string[] } {
  const base = loadFaultsConfig();
  const config = {
    ...base,
    FAULTS_DIR: join(base.FAULTS_DIR, '..', dir),
    FAULTS_KAFKA_PORT: base.FAULTS_KAFKA_PORT + 1000,
    FAULTS_KAFKA_CONTROLLER_PORT: base.FAULTS_KAFKA_CONTROLLER_PORT + 1000,
    FAULTS_REGISTRY_PORT: base.FAULTS_REGISTRY_PORT + 1000,
    FAULTS_REDIS_PORT: base.FAULTS_REDIS_PORT + 1000,
    FAULTS_BASE_PORT: base.FAULTS_BASE_PORT + 1000,
  };
  return { harness: new Harness(config), brokers: [`127.0.0.1:${config.FAULTS_KAFKA_PORT}`] };
}

/**
 * Load until stored, so consumer group joins, first inserts and the JIT compilers' warm-up (the
 * fresh broker's C2 compiler alone took a third of a core for the first minute) are not counted as
 * throughput or latency. `eventsPerSecond` defaults to 1,000 (20 uploads of 50 events).
 */
export async function warmUp(h: Harness, tag: string, opts: { seconds?: number; users?: number; eventsPerSecond?: number } = {}): Promise<void> {
  const rate = (opts.eventsPerSecond ?? 1_000) / 50;
  const warm = startLoad({
    gatewayUrl: h.gatewayUrl,
    key: KEYS.sdk,
    tag,
    seed: 1,
    rate,
    maxInFlight: 512,
    ...(opts.users === undefined ? {} : { users: opts.users }),
  });
  await new Promise((r) => setTimeout(r, (opts.seconds ?? 5) * 1000));
  const tally = await warm.stop();
  await awaitAllStored((s, p) => h.query(s, p), tally, [tag], { timeoutMs: 120_000, since: Date.now() });
}
