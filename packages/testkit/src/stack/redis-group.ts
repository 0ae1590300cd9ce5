import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Redis from 'ioredis';
import { requireProgram } from '../programs';
import { waitFor } from '../wait-for';

/** A process the group started: how to kill it. */
export interface LaunchedProcess {
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

export interface RedisGroupOptions {
  /** Working directories (one per process) and the sentinels' config files go here. */
  dir: string;
  ports: { primary: number; replica: number; sentinels: readonly number[] };
  masterName: string;
  /** Sentinel's down-after-milliseconds: how long the primary may be silent before it counts as down. Default 1,000. */
  downAfterMs?: number;
  /** Starts a process (the fault harness passes its own, which it kills however it ends); default: spawn. */
  launch?: (name: string, cmd: string, args: string[], cwd: string) => LaunchedProcess;
}

function spawnProcess(_name: string, cmd: string, args: string[], cwd: string): LaunchedProcess {
  const proc = spawn(cmd, args, { cwd, stdio: 'ignore' });
  // A spawn that fails ('error' without 'exit') must not be an unhandled event that kills the process.
  const exited = new Promise<void>((ok) => {
    proc.once('exit', () => ok());
    proc.once('error', () => ok());
  });
  const signal = async (s: NodeJS.Signals) => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(s);
    await exited;
  };
  return { kill9: () => signal('SIGKILL'), stop: () => signal('SIGTERM') };
}

const ask = async <T>(port: number, run: (r: Redis) => Promise<T>): Promise<T> => {
  const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => undefined); // a refused connection rejects connect() below
  try {
    await r.connect();
    return await run(r);
  } finally {
    r.disconnect();
  }
};

/**
 * A Redis primary, one replica and Sentinels watching them, all redis-server/redis-sentinel processes
 * on 127.0.0.1 without persistence (the replica is the copy that counts). For failover tests, the
 * fault suite and the pull bench's WAIT variant; `stop()` ends every process it started.
 */
export class RedisGroup {
  private readonly byPort = new Map<number, LaunchedProcess>();

  private constructor(private readonly opts: RedisGroupOptions) {}

  static async start(opts: RedisGroupOptions): Promise<RedisGroup> {
    const g = new RedisGroup(opts);
    try {
      await g.boot();
    } catch (err) {
      await g.stop();
      throw err;
    }
    return g;
  }

  get sentinels(): { host: string; port: number }[] {
    return this.opts.ports.sentinels.map((port) => ({ host: '127.0.0.1', port }));
  }

  private launch(name: string, cmd: string, args: string[], port: number) {
    const cwd = join(this.opts.dir, name);
    mkdirSync(cwd, { recursive: true });
    this.byPort.set(port, (this.opts.launch ?? spawnProcess)(name, cmd, args, cwd));
  }

  private async boot() {
    const { ports, masterName } = this.opts;
    // Both programs are checked before anything starts: a missing one fails here, naming its package.
    const redisServer = requireProgram('redis-server');
    const redisSentinel = requireProgram('redis-sentinel');
    // DEBUG SLEEP (local connections only) lets a test stall the replica.
    const server = (port: number) => ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--enable-debug-command', 'local'];
    this.launch('primary', redisServer, server(ports.primary), ports.primary);
    this.launch('replica', redisServer, [...server(ports.replica), '--replicaof', '127.0.0.1', String(ports.primary)], ports.replica);
    await waitFor(async () => (await ask(ports.replica, (r) => r.info('replication'))).includes('master_link_status:up'), {
      timeoutMs: 30_000,
      intervalMs: 100,
      what: 'the replica to sync with the primary',
    });
    const quorum = Math.floor(ports.sentinels.length / 2) + 1;
    ports.sentinels.forEach((port, i) => {
      const conf = join(this.opts.dir, `sentinel-${i}.conf`);
      // Sentinel rewrites its own config file (what it learnt: replicas, other sentinels, epochs).
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `sentinel monitor ${masterName} 127.0.0.1 ${ports.primary} ${quorum}`,
          `sentinel down-after-milliseconds ${masterName} ${this.opts.downAfterMs ?? 1000}`,
          `sentinel failover-timeout ${masterName} 10000`,
          `sentinel parallel-syncs ${masterName} 1`,
          '',
        ].join('\n'),
      );
      this.launch(`sentinel-${i}`, redisSentinel, [conf], port);
    });
    // A failover needs each sentinel to know the replica and a majority of the others (hello messages, every 2 s).
    for (const port of ports.sentinels) {
      await waitFor(
        async () =>
          ask(port, async (r) => {
            const replicas = (await r.call('SENTINEL', 'REPLICAS', masterName)) as unknown[];
            const others = (await r.call('SENTINEL', 'SENTINELS', masterName)) as unknown[];
            return replicas.length === 1 && others.length === ports.sentinels.length - 1;
          }),
        { timeoutMs: 30_000, intervalMs: 200, what: `sentinel ${port} to see the replica and the other sentinels` },
      );
    }
  }

  /** The primary's port as the first reachable sentinel names it. */
  async primaryPort(): Promise<number> {
    for (const port of this.opts.ports.sentinels) {
      const addr = await ask(port, (r) => r.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.opts.masterName) as Promise<[string, string]>).catch(
        () => undefined,
      );
      if (addr) return Number(addr[1]);
    }
    throw new Error('no sentinel answered');
  }

  /**
   * Resolves with the time the first sentinel announces a new primary (`+switch-master`); call it
   * before the fault. Event-driven, so a busy machine does not delay the measurement as polling would.
   */
  async switchMaster(timeoutMs: number): Promise<number> {
    const port = this.opts.ports.sentinels[0] as number;
    const sub = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
    sub.on('error', () => undefined);
    await sub.connect();
    await sub.subscribe('+switch-master');
    try {
      return await new Promise<number>((ok, fail) => {
        const timer = setTimeout(() => fail(new Error(`no +switch-master within ${timeoutMs} ms`)), timeoutMs);
        sub.once('message', () => {
          clearTimeout(timer);
          ok(Date.now());
        });
      });
    } finally {
      sub.disconnect();
    }
  }

  /** kill -9 of the current primary; resolves once it is gone. Returns its port. */
  async killPrimary(): Promise<number> {
    const port = await this.primaryPort();
    await this.byPort.get(port)?.kill9();
    this.byPort.delete(port);
    return port;
  }

  /** `SENTINEL FAILOVER`: the replica is promoted although the primary is alive; the old primary becomes its replica. */
  async failover(): Promise<number> {
    const port = await this.primaryPort();
    await ask(this.opts.ports.sentinels[0] as number, (r) => r.call('SENTINEL', 'FAILOVER', this.opts.masterName));
    return port;
  }

  /** Resolves once the first sentinel that answers names a primary other than `oldPort` and that node answers as a primary. */
  async awaitNewPrimary(oldPort: number, timeoutMs = 60_000): Promise<number> {
    return waitFor(
      async () => {
        const port = await this.primaryPort();
        if (port === oldPort) return undefined;
        const role = await ask(port, (r) => r.call('ROLE') as Promise<[string]>);
        return role[0] === 'master' ? port : undefined;
      },
      { timeoutMs, intervalMs: 50, what: `a primary other than ${oldPort}` },
    );
  }

  async stop(): Promise<void> {
    await Promise.allSettled([...this.byPort.values()].map((p) => p.kill9()));
    this.byPort.clear();
  }
}
