import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';

/**
 * docker-compose.yml cannot run here (no Docker engine): this checks that it parses and that the
 * `cluster` profile, with deploy/compose/cluster.env, describes the three-node topology the fault
 * suite's scenario i tests (and the default, the single broker) once compose's `${VAR:-default}`
 * interpolation is applied.
 */
const ROOT = resolve(__dirname, '../..');

interface ComposeService {
  profiles?: string[];
  environment?: Record<string, string | number>;
  depends_on?: Record<string, { condition: string; required?: boolean }>;
  command?: string[];
  ports?: string[];
}

function envFile(path: string): Record<string, string> {
  return Object.fromEntries(
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('#'))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

/** A value for the required secret (compose refuses to start without one). */
const HASH_KEY = { PRIVACY_HASH_KEY: 'compose-test-privacy-hash-key-0123456789' };

/**
 * The compose file as compose would see it with `env`: `${VAR:-default}` replaced, `${VAR:?message}`
 * replaced or refused with the message (as compose does), `$$` kept as a literal `$`.
 */
function compose(env: Record<string, string>): Record<string, ComposeService> {
  const text = readFileSync(resolve(ROOT, 'docker-compose.yml'), 'utf8').replace(
    /\$\$|\$\{(\w+):([-?])([^}]*)\}/g,
    (all, name?: string, how?: string, rest?: string) => {
      if (all === '$$') return '$';
      const value = env[name as string];
      if (value !== undefined) return value;
      if (how === '?') throw new Error(`required variable ${name} is missing a value: ${rest}`);
      return rest as string;
    },
  );
  // Every variable outside comments has a default or is required.
  expect(text.split('\n').filter((l) => !l.trimStart().startsWith('#') && l.includes('${'))).toEqual([]);
  return (parse(text, { merge: true }) as { services: Record<string, ComposeService> }).services;
}

const env = (s: ComposeService | undefined) => Object.fromEntries(Object.entries(s?.environment ?? {}).map(([k, v]) => [k, String(v)]));
const APP_SERVICES = ['gateway', 'validator', 'segmenter', 'action-store'];

describe('docker-compose.yml', () => {
  it('publishes no ClickHouse port: analysts’ SQL goes through the edge to the segmenter, which runs it on the server', () => {
    const services = compose(HASH_KEY);
    expect(services.clickhouse?.ports).toBeUndefined();
    expect(env(services.segmenter).ANALYST_SQL_CLICKHOUSE_URL).toBe('http://clickhouse:8123');
  });

  it('runs one Kafka node by default: the cluster nodes are in a profile, every replication setting is 1', () => {
    const services = compose(HASH_KEY);
    const always = Object.entries(services)
      .filter(([, s]) => !s.profiles)
      .map(([n]) => n);
    expect(always.filter((n) => n.startsWith('kafka'))).toEqual(['kafka', 'kafka-init']);
    expect([services['kafka-2']?.profiles, services['kafka-3']?.profiles]).toEqual([['cluster'], ['cluster']]);
    const kafka = env(services.kafka);
    expect([kafka.KAFKA_CONTROLLER_QUORUM_VOTERS, kafka.KAFKA_DEFAULT_REPLICATION_FACTOR, kafka.KAFKA_MIN_INSYNC_REPLICAS]).toEqual(['1@kafka:9093', '1', '1']);
    expect(env(services['kafka-init'])).toEqual({ REPLICATION_FACTOR: '1', MIN_INSYNC_REPLICAS: '1' });
    for (const name of APP_SERVICES) expect([name, env(services[name]).KAFKA_BROKERS]).toEqual([name, 'kafka:9092']);
  });

  it('with deploy/compose/cluster.env and the cluster profile: three nodes in one quorum, replication 3, min.insync.replicas 2', () => {
    const services = compose({ ...envFile(resolve(ROOT, 'deploy/compose/cluster.env')), ...HASH_KEY });
    const nodes = ['kafka', 'kafka-2', 'kafka-3'].map((name) => ({ name, env: env(services[name]) }));
    expect(nodes.map((n) => [n.name, n.env.KAFKA_NODE_ID, n.env.KAFKA_ADVERTISED_LISTENERS])).toEqual([
      ['kafka', '1', 'PLAINTEXT://kafka:9092'],
      ['kafka-2', '2', 'PLAINTEXT://kafka-2:9092'],
      ['kafka-3', '3', 'PLAINTEXT://kafka-3:9092'],
    ]);
    for (const n of nodes) {
      expect([n.name, n.env.KAFKA_CONTROLLER_QUORUM_VOTERS]).toEqual([n.name, '1@kafka:9093,2@kafka-2:9093,3@kafka-3:9093']);
      expect([n.name, n.env.KAFKA_DEFAULT_REPLICATION_FACTOR, n.env.KAFKA_MIN_INSYNC_REPLICAS, n.env.KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR]).toEqual([
        n.name,
        '3',
        '2',
        '3',
      ]);
      expect([n.name, n.env.CLUSTER_ID]).toEqual([n.name, nodes[0]?.env.CLUSTER_ID]);
    }
    // A Kafka cluster id is 16 bytes in base64url without padding.
    expect(nodes[0]?.env.CLUSTER_ID).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const init = services['kafka-init'];
    expect(env(init)).toEqual({ REPLICATION_FACTOR: '3', MIN_INSYNC_REPLICAS: '2' });
    expect(init?.depends_on).toEqual({
      kafka: { condition: 'service_healthy' },
      'kafka-2': { condition: 'service_healthy', required: false },
      'kafka-3': { condition: 'service_healthy', required: false },
    });
    expect(init?.command?.[0]).toContain('--replication-factor "$REPLICATION_FACTOR"');
    expect(init?.command?.[0]).toContain('--config min.insync.replicas="$MIN_INSYNC_REPLICAS"');
    for (const name of APP_SERVICES) expect([name, env(services[name]).KAFKA_BROKERS]).toEqual([name, 'kafka:9092,kafka-2:9092,kafka-3:9092']);
  });

  it('gives every service the privacy hash key from the environment, and refuses to start without one', () => {
    expect(() => compose({})).toThrow(
      'required variable PRIVACY_HASH_KEY is missing a value: set PRIVACY_HASH_KEY to a secret of at least 32 characters (docs/privacy.md)',
    );
    const services = compose(HASH_KEY);
    for (const name of APP_SERVICES) expect([name, env(services[name]).PRIVACY_HASH_KEY]).toEqual([name, HASH_KEY.PRIVACY_HASH_KEY]);
    // Only the platform's own services get it: Kafka, ClickHouse, Redis and the edge never see it.
    expect(
      Object.entries(services)
        .filter(([, s]) => env(s).PRIVACY_HASH_KEY !== undefined)
        .map(([n]) => n),
    ).toEqual(APP_SERVICES);
  });
});
