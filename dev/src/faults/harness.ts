import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createKafkaClusterProbe } from '@evp/kafka';
import { type StackEndpoints, parseStackEnv, waitFor } from '@evp/testkit';
import type { FaultsConfig } from './config';
import { onLastWord, startChild, stopStrays, waitHttpOk, type Child } from './processes';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '../../..');

export const KEYS = {
  sdk: 'sdk_faults_0123456789abcdef',
  api: 'api_faults_0123456789abcdef',
  otherSdk: 'sdk_faults_other_0123456789',
  appId: 'faults-app',
  otherAppId: 'faults-other',
} as const;

export type ServiceName = 'gateway' | 'validator' | 'action-store' | 'sink';

/** Node flags for a service's process and the CPUs it may run on (`taskset -c` list, e.g. "1" or "0,1"). */
export interface ServiceLaunch {
  nodeArgs?: string[];
  cpus?: string;
}
const SERVICES: ServiceName[] = ['sink', 'validator', 'action-store', 'gateway'];

/** The Kafka the services run against: the single broker, or the three-node cluster (scenario i). */
export type KafkaShape = 'single' | 'cluster';
export const CLUSTER_NODES = 3;

/**
 * The platform as an operator runs it, on a stack of its own: Kafka (KRaft: one broker, or a
 * three-node cluster) and Apicurio Registry
 * from deploy/local/stack.sh on the harness's ports, its own redis-server with AOF (fsync always),
 * and the four services as separate processes on env config, the sink on chdb
 * (dev/src/sink-chdb). Everything it starts is stopped by `stop()` or, at worst, killAllChildren.
 */
export class Harness {
  readonly dir: string;
  readonly ports: {
    gateway: number;
    validator: number;
    actions: number;
    sinkMetrics: number;
    sinkQuery: number;
    embedded: number;
    sinkApi: number;
    /** Scenario j's two action stores (this and the next). */
    failoverStores: number;
    /** Scenario j's Redis primary (replica and sentinels on the next four). */
    redisGroup: number;
  };
  /** Running processes by instance id: a service's name, or a replica's id (replicas.ts). */
  private readonly children = new Map<string, Child>();
  private redis?: Child;
  /** What deploy/local/stack.sh up printed (the registry's URL carries its API path). */
  private stack?: StackEndpoints;
  private started = false;
  /** The Kafka the services use now; every shape started is stopped by `stop()`. */
  private kafka: KafkaShape = 'single';
  private readonly kafkaStarted = new Set<KafkaShape>();
  /** The stack's emergency stops (processes.onLastWord), dropped once stop() took it down. */
  private readonly lastWords: (() => void)[] = [];
  /** Extra env per service for its next start (fault injection). */
  readonly overrides: Partial<Record<ServiceName, Record<string, string>>> = {};
  /** How a service's next process is launched (benchmarks: node flags such as --cpu-prof, and CPU pinning). */
  readonly launch: Partial<Record<ServiceName, ServiceLaunch>> = {};

  constructor(private readonly config: FaultsConfig) {
    this.dir = config.FAULTS_DIR;
    const b = config.FAULTS_BASE_PORT;
    this.ports = {
      gateway: b,
      validator: b + 1,
      actions: b + 2,
      sinkMetrics: b + 3,
      sinkQuery: b + 4,
      embedded: b + 5,
      sinkApi: b + 6,
      failoverStores: b + 7,
      redisGroup: config.FAULTS_SENTINEL_BASE_PORT,
    };
  }

  get gatewayUrl() {
    return `http://127.0.0.1:${this.ports.gateway}`;
  }
  /** The segmenter's public API (segments) on the chdb sink process. */
  get segmenterUrl() {
    return `http://127.0.0.1:${this.ports.sinkApi}`;
  }
  /** The harness's own Redis (the action store's). */
  get redisUrl() {
    return `redis://127.0.0.1:${this.config.FAULTS_REDIS_PORT}`;
  }
  get actionsUrl() {
    return `http://127.0.0.1:${this.ports.actions}`;
  }
  /** The harness's schema registry (a bench encodes and decodes records as the services do). */
  get registryUrl() {
    if (!this.stack) throw new Error('the harness stack is not up: call start() first');
    return this.stack.SCHEMA_REGISTRY_URL;
  }
  /** Whether start() ran (stack and services), as opposed to prepare() alone. */
  get isStarted() {
    return this.started;
  }
  /** What child processes start from (PATH, HOME …). */
  get inheritedEnv() {
    return this.config.inheritedEnv;
  }
  get keysFile() {
    return join(this.dir, 'keys.json');
  }
  /** One stack directory for both shapes: the jars, the registry and the lock are shared; each shape has its own Kafka data. */
  private stackEnv(shape: KafkaShape) {
    const c = this.config;
    const kafka =
      shape === 'single'
        ? { KAFKA_PORT: String(c.FAULTS_KAFKA_PORT), KAFKA_CONTROLLER_PORT: String(c.FAULTS_KAFKA_CONTROLLER_PORT) }
        : {
            STACK_KAFKA_NODES: String(CLUSTER_NODES),
            KAFKA_PORT: String(c.FAULTS_CLUSTER_PORT),
            KAFKA_CONTROLLER_PORT: String(c.FAULTS_CLUSTER_CONTROLLER_PORT),
          };
    return {
      ...c.inheritedEnv,
      STACK_LOCAL_DIR: join(this.dir, 'stack'),
      // The jars of the repository's own stack (fetched once), not a copy per run.
      STACK_KAFKA_LIBS: join(ROOT, '.local/kafka/libs'),
      ...kafka,
      SCHEMA_REGISTRY_PORT: String(c.FAULTS_REGISTRY_PORT),
      REDIS_PORT: String(c.FAULTS_REDIS_PORT),
      // A node killed with kill -9 recovers every partition's log before its broker port opens: on two
      // busy cores that took up to 2 minutes.
      STACK_UP_TIMEOUT: shape === 'single' ? '120' : '300',
    };
  }
  /** The bootstrap list of the Kafka in use. */
  get brokers(): string[] {
    if (this.kafka === 'single') return [`127.0.0.1:${this.config.FAULTS_KAFKA_PORT}`];
    return Array.from({ length: CLUSTER_NODES }, (_, i) => `127.0.0.1:${this.config.FAULTS_CLUSTER_PORT + i}`);
  }
  get kafkaShape(): KafkaShape {
    return this.kafka;
  }

  async start(kafka: KafkaShape = 'single') {
    this.prepare();
    this.started = true;
    await this.startRedis();
    this.kafka = kafka;
    await this.stackUp();
    for (const s of SERVICES) await this.startService(s);
  }

  /** The working directory and the keys file: all a scenario that brings its own parts needs. */
  prepare() {
    clearKeepingJars(this.dir);
    mkdirSync(join(this.dir, 'logs'), { recursive: true });
    writeFileSync(
      this.keysFile,
      JSON.stringify({
        keys: [
          { id: 'faults-sdk', app_id: KEYS.appId, role: 'sdk', key: KEYS.sdk },
          { id: 'faults-api', app_id: KEYS.appId, role: 'api', key: KEYS.api },
          { id: 'faults-other-sdk', app_id: KEYS.otherAppId, role: 'sdk', key: KEYS.otherSdk },
        ],
      }),
    );
  }

  /**
   * After a scenario, whatever its outcome: every process it left running (a replica, an extra
   * store, a sentinel …) is killed, and the four services run again. Returns what was stopped.
   */
  async cleanup(): Promise<string[]> {
    const extra = [...this.children.keys()].filter((id) => !(SERVICES as string[]).includes(id));
    await Promise.allSettled(extra.map((id) => this.kill9(id)));
    const owned = new Set([...this.children.values(), ...(this.redis ? [this.redis] : [])]);
    const strays = await stopStrays((c) => owned.has(c));
    // A scenario may leave a service dead (that is what some bugs do): the next one starts whole.
    for (const name of this.started ? SERVICES : []) {
      if (!this.running(name)) await this.startService(name).catch((err: Error) => console.error(`restarting ${name}: ${err.message}`));
    }
    return [...extra, ...strays];
  }

  async stop() {
    if (!this.started) return;
    await Promise.allSettled([...this.children.values()].map((c) => c.terminate(20_000)));
    this.children.clear();
    for (const shape of this.config.FAULTS_KEEP_KAFKA ? [] : this.kafkaStarted) {
      await run('bash', [join(ROOT, 'deploy/local/stack.sh'), 'down'], { env: this.stackEnv(shape), timeout: 120_000 }).catch(() => undefined);
    }
    for (const drop of this.lastWords.splice(0)) drop();
    await this.redis?.terminate(10_000).catch(() => undefined);
  }

  /** Starts (or restarts the dead nodes of) the Kafka in use, with the registry; waits until its topics are ready. */
  private async stackUp() {
    if (!this.kafkaStarted.has(this.kafka) && !this.config.FAULTS_KEEP_KAFKA) {
      // Not a child of ours: a run that dies without stop() (an uncaught exception) takes it down here.
      const env = this.stackEnv(this.kafka);
      this.lastWords.push(onLastWord(() => execFileSync('bash', [join(ROOT, 'deploy/local/stack.sh'), 'down'], { env, timeout: 120_000, stdio: 'ignore' })));
    }
    this.kafkaStarted.add(this.kafka);
    const { stdout } = await run('bash', [join(ROOT, 'deploy/local/stack.sh'), 'up'], { env: this.stackEnv(this.kafka), timeout: 600_000 });
    this.stack = parseStackEnv(stdout);
  }

  /**
   * Moves the services to the other Kafka: starts it, stops every service, starts them again against
   * it (the chdb data stays; consumer groups start afresh on the new cluster's topics).
   */
  async useKafka(shape: KafkaShape) {
    if (shape === this.kafka) return;
    this.kafka = shape;
    await this.stackUp();
    for (const s of [...SERVICES].reverse()) await this.terminate(s).catch(() => this.kill9(s));
    for (const s of SERVICES) await this.startService(s);
  }

  /** Partition placement and topic settings of the Kafka in use; the caller closes it. */
  kafkaProbe() {
    return createKafkaClusterProbe({ brokers: this.brokers, clientId: 'faults-probe' });
  }

  async startRedis() {
    const dir = join(this.dir, 'redis');
    mkdirSync(dir, { recursive: true });
    this.redis = startChild(
      'redis',
      'redis-server',
      ['--bind', '127.0.0.1', '--port', String(this.config.FAULTS_REDIS_PORT), '--appendonly', 'yes', '--appendfsync', 'always', '--save', '', '--dir', dir],
      { env: this.config.inheritedEnv, logFile: join(this.dir, 'logs/redis.log'), cwd: dir },
    );
    await waitFor(
      async () => {
        const { stdout } = await run('redis-cli', ['-p', String(this.config.FAULTS_REDIS_PORT), 'ping'], { timeout: 2_000 });
        return stdout.trim() === 'PONG';
      },
      { timeoutMs: 30_000, intervalMs: 100, what: 'redis PONG' },
    );
  }

  async killRedis() {
    await this.redis?.kill9();
  }

  /** kill -9 of the broker, or of cluster node `node` (the JVM stack.sh started; its pid file names it). */
  async killBroker(node = 1) {
    const pidFile = this.kafka === 'single' ? 'stack/kafka/kafka.pid' : `stack/kafka-cluster/node-${node}/kafka.pid`;
    const pid = Number(readFileSync(join(this.dir, pidFile), 'utf8'));
    process.kill(-pid, 'SIGKILL');
    await waitFor(() => !isAlive(pid), { timeoutMs: 15_000, intervalMs: 100, what: 'the broker to die' });
  }

  /** Restarts the broker (every dead node of the cluster) on its data (stack.sh up keeps data; topics exist). */
  async restartBroker() {
    await this.stackUp();
  }

  serviceEnv(name: ServiceName): Record<string, string | undefined> {
    const common = {
      ...this.config.inheritedEnv,
      KAFKA_BROKERS: this.brokers.join(','),
      SCHEMA_REGISTRY_URL: this.registryUrl,
      LOG_LEVEL: this.config.FAULTS_LOG_LEVEL,
      KEYS_FILE: this.keysFile,
    };
    const own: Record<ServiceName, Record<string, string>> = {
      gateway: { PORT: String(this.ports.gateway), SHUTDOWN_GRACE_MS: '10000' },
      validator: { METRICS_PORT: String(this.ports.validator) },
      'action-store': { PORT: String(this.ports.actions), REDIS_URL: this.redisUrl, PULL_MAX: '50' },
      sink: {
        METRICS_PORT: String(this.ports.sinkMetrics),
        SINK_QUERY_PORT: String(this.ports.sinkQuery),
        PORT: String(this.ports.sinkApi),
        CHDB_PATH: join(this.dir, 'chdb'),
      },
    };
    return { ...common, ...own[name], ...this.overrides[name] };
  }

  async startService(name: ServiceName) {
    const url = {
      gateway: `${this.gatewayUrl}/readyz`,
      validator: `http://127.0.0.1:${this.ports.validator}/healthz`,
      'action-store': `${this.actionsUrl}/healthz`,
      sink: `http://127.0.0.1:${this.ports.sinkQuery}/healthz`,
    }[name];
    await this.startProcess(name, name, this.serviceEnv(name), url);
  }

  /**
   * Starts `service`'s main as the process `id` with `env`, and waits until `readyUrl` answers 2xx
   * (or fails when the process exits first). The log is logs/<id>.log.
   */
  async startProcess(id: string, service: ServiceName, env: Record<string, string | undefined>, readyUrl: string, timeoutMs = 90_000) {
    const main = service === 'sink' ? 'dev/src/sink-chdb/main.ts' : `services/${service}/src/main.ts`;
    const log = join(this.dir, `logs/${id}.log`);
    const { nodeArgs = [], cpus } = this.launch[service] ?? {};
    const node = [...nodeArgs, '--import', 'tsx', join(ROOT, main)];
    // taskset execs node in place: the child's pid (and process group) is node's own.
    const [cmd, args] = cpus === undefined ? [process.execPath, node] : ['taskset', ['-c', cpus, process.execPath, ...node]];
    const child = startChild(id, cmd, args, { env, logFile: log, cwd: ROOT });
    this.children.set(id, child);
    await Promise.race([
      waitHttpOk(readyUrl, timeoutMs),
      child.exited.then((code) => {
        throw new Error(`${id} exited (code ${code}) during start-up; log: ${log}`);
      }),
    ]);
  }

  async kill9(id: string) {
    await this.children.get(id)?.kill9();
    this.children.delete(id);
  }

  async terminate(id: string) {
    const code = await this.children.get(id)?.terminate(30_000);
    this.children.delete(id);
    return code;
  }

  /**
   * The pids of what runs the pipeline: each service process by instance id, and the broker, the
   * registry and Redis of the single-node stack (from their pid files; absent when not running).
   */
  processIds(): Record<string, number> {
    const ids: Record<string, number> = {};
    for (const [id, c] of this.children) if (c.proc.pid !== undefined) ids[id] = c.proc.pid;
    if (this.redis?.proc.pid !== undefined) ids.redis = this.redis.proc.pid;
    for (const [name, file] of [
      ['kafka', 'stack/kafka/kafka.pid'],
      ['registry', 'stack/schema-registry/registry.pid'],
    ] as const) {
      try {
        const pid = Number(readFileSync(join(this.dir, file), 'utf8').trim());
        if (Number.isInteger(pid) && isAlive(pid)) ids[name] = pid;
      } catch {
        // not started in this shape
      }
    }
    return ids;
  }

  /** Whether a service process (or replica) is still alive (a dead consumer may or may not take the process with it). */
  running(id: string) {
    const c = this.children.get(id);
    return Boolean(c && c.proc.exitCode === null && c.proc.signalCode === null);
  }

  /** A query on the sink's chdb (through its side port: the data directory belongs to that process). */
  async query<T = Record<string, unknown>>(sql: string, params?: Record<string, unknown>): Promise<T[]> {
    return sideCall<T[]>(this.ports.sinkQuery, '/query', { sql, params });
  }

  async command(sql: string) {
    await sideCall(this.ports.sinkQuery, '/command', { sql });
  }
}

export async function sideCall<T>(port: number, path: string, body: unknown, timeoutMs = 120_000): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json' },
    signal: AbortSignal.timeout(timeoutMs),
  });
  const out = (await res.json()) as T & { error?: string };
  if (!res.ok) throw new Error(`${path}: ${res.status} ${out.error ?? ''}`);
  return out;
}

function isAlive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Empties the harness's directory but for the Kafka jars stack.sh fetched into it (it fetches them
 * again only when deploy/local/kafka/pom.xml changes): minutes of Maven on a busy machine, per run.
 */
function clearKeepingJars(dir: string) {
  const keep = join(dir, 'stack/kafka/libs');
  for (const [parent, name] of [
    [dir, 'stack'],
    [join(dir, 'stack'), 'kafka'],
    [join(dir, 'stack/kafka'), 'libs'],
  ] as const) {
    if (!existsSync(parent)) return;
    for (const entry of readdirSync(parent)) if (entry !== name) rmSync(join(parent, entry), { recursive: true, force: true });
    if (join(parent, name) === keep) return;
  }
}
