import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { renderEdgeConf } from '../testing/nginx-conf';
import type { Harness, ServiceName } from './harness';
import { startChild, waitHttpOk, type Child } from './processes';

/** The services scenario i runs two of, as the edge's upstream names them. */
export const REPLICATED = ['gateway', 'validator', 'segmenter', 'action-store'] as const;
export type Replicated = (typeof REPLICATED)[number];

const ROOT = resolve(__dirname, '../../..');
const REPLICAS = 2;
/**
 * A replica joining its consumer groups waits for each rebalance (the live replica rejoins every
 * group): on the shared 2-core machine a segmenter took over 90 s to be ready after a kill.
 */
const START_MS = 240_000;
/** The single services the harness runs, stopped while the replicas run (the sink holds the chdb directory). */
const SINGLES: ServiceName[] = ['gateway', 'action-store', 'validator', 'sink'];

/**
 * Two replicas of each service behind a real nginx on deploy/edge/nginx.conf (rendered with two
 * servers per upstream), on the harness's broker, registry and Redis:
 *   - gateways, validators and action stores: the services' own mains, each on ports of its own;
 *   - segmenters: the chdb sink's `segmenter` role (dev/src/sink-chdb), both on one `store` process
 *     that holds the chdb directory (standing in for the ClickHouse server they would share) on the
 *     harness's side port, so `h.query` reads the same database.
 * Ports from FAULTS_BASE_PORT: +9 the edge, +10/11 gateways, +12/13 validators' metrics, +14/15
 * action stores, +16/17 segmenters. `stop()` puts the harness's single services back.
 */
export class ReplicaSet {
  private nginx?: Child;
  readonly edgePort: number;

  constructor(private readonly h: Harness) {
    this.edgePort = h.ports.gateway + 9;
  }

  get edgeUrl() {
    return `http://127.0.0.1:${this.edgePort}`;
  }

  /** The id of replica `i` of `service`: its process and log name. */
  static id(service: Replicated, i: number) {
    return `${service}-${i + 1}`;
  }

  port(service: Replicated, i: number) {
    const offset = { gateway: 10, validator: 12, 'action-store': 14, segmenter: 16 }[service];
    return this.h.ports.gateway + offset + i;
  }

  async start() {
    for (const s of SINGLES) await this.h.terminate(s);
    const h = this.h;
    await h.startProcess('chdb-store', 'sink', { ...h.serviceEnv('sink'), SINK_CHDB_ROLE: 'store' }, `http://127.0.0.1:${h.ports.sinkQuery}/healthz`);
    // Consumers first, then the HTTP services in front of them.
    for (const service of ['segmenter', 'validator', 'action-store', 'gateway'] as const) {
      await Promise.all(Array.from({ length: REPLICAS }, (_, i) => this.startReplica(service, i)));
    }
    await this.startEdge();
  }

  async startReplica(service: Replicated, i: number) {
    const h = this.h;
    const port = String(this.port(service, i));
    const id = ReplicaSet.id(service, i);
    if (service === 'segmenter') {
      const env: Record<string, string | undefined> = {
        ...h.serviceEnv('sink'),
        SINK_CHDB_ROLE: 'segmenter',
        CHDB_REMOTE_URL: `http://127.0.0.1:${h.ports.sinkQuery}`,
        PORT: port,
        // A segment or campaign created through the edge is known to both replicas within a second.
        SEGMENTS_REFRESH_INTERVAL_MS: '1000',
        CAMPAIGNS_REFRESH_INTERVAL_MS: '1000',
      };
      delete env.CHDB_PATH;
      delete env.SINK_QUERY_PORT;
      return h.startProcess(id, 'sink', env, `http://127.0.0.1:${port}/healthz`, START_MS);
    }
    if (service === 'validator')
      return h.startProcess(id, 'validator', { ...h.serviceEnv('validator'), METRICS_PORT: port }, `http://127.0.0.1:${port}/healthz`, START_MS);
    const ready = service === 'gateway' ? 'readyz' : 'healthz';
    return h.startProcess(id, service, { ...h.serviceEnv(service), PORT: port }, `http://127.0.0.1:${port}/${ready}`, START_MS);
  }

  private async startEdge() {
    const dir = join(this.h.dir, 'edge');
    const openapiRoot = join(dir, 'openapi');
    mkdirSync(openapiRoot, { recursive: true });
    copyFileSync(join(ROOT, 'docs/openapi.json'), join(openapiRoot, 'openapi.json'));
    // nginx's workers may run as another user (a root master): they read the OpenAPI copy.
    for (const d of [dir, openapiRoot]) chmodSync(d, 0o755);
    const servers = (service: Replicated) => Array.from({ length: REPLICAS }, (_, i) => `127.0.0.1:${this.port(service, i)}`);
    const conf = join(dir, 'nginx.conf');
    writeFileSync(
      conf,
      renderEdgeConf({
        upstreams: { gateway: servers('gateway'), action_store: servers('action-store'), segmenter: servers('segmenter') },
        listen: `127.0.0.1:${this.edgePort}`,
        pidFile: join(dir, 'nginx.pid'),
        openapiRoot,
      }),
    );
    this.nginx = startChild('nginx', 'nginx', ['-p', dir, '-e', 'stderr', '-c', conf, '-g', 'daemon off;'], {
      env: this.h.serviceEnv('gateway'),
      logFile: join(this.h.dir, 'logs/nginx.log'),
      cwd: dir,
    });
    await waitHttpOk(`${this.edgeUrl}/healthz`, 15_000);
  }

  /** Every replica, the store and the edge stopped; the harness's single services started again. */
  async stop() {
    const ids = REPLICATED.flatMap((s) => Array.from({ length: REPLICAS }, (_, i) => ReplicaSet.id(s, i)));
    await Promise.allSettled([...ids.map((id) => this.h.terminate(id)), this.nginx?.terminate(10_000)]);
    await this.h.terminate('chdb-store');
    for (const s of [...SINGLES].reverse()) await this.h.startService(s);
  }
}
