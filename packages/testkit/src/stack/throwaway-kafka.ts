import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { repoRoot } from './endpoints';
import { requireProgram } from '../programs';
import { freePort, portOpen } from './ports';

/**
 * A private single-node KRaft broker for tests that must stop and restart Kafka (outage tests),
 * never the shared broker of deploy/local/stack.sh. Same jars as stack.sh (.local/kafka/libs), free
 * ports picked at first start and kept across restarts so clients reconnect to the same address,
 * data in a temp dir that `destroy()` deletes.
 */
export interface ThrowawayKafka {
  /** `127.0.0.1:<port>` */
  brokers: string;
  dir: string;
  /** Starts the broker (again) and resolves once its port accepts connections. */
  start(): Promise<void>;
  /** Stops the broker: SIGTERM (controlled shutdown), SIGKILL after `timeoutMs`. */
  stop(opts?: { kill?: boolean; timeoutMs?: number }): Promise<void>;
  /** Stops it and deletes its data. */
  destroy(): Promise<void>;
}

function properties(dir: string, port: number, controllerPort: number): string {
  return `process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:${controllerPort}
listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}
advertised.listeners=PLAINTEXT://127.0.0.1:${port}
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=${join(dir, 'data')}
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
auto.create.topics.enable=false
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=2
num.recovery.threads.per.data.dir=1
log.segment.bytes=16777216
`;
}

export async function createThrowawayKafka(opts: { libs?: string; startTimeoutMs?: number } = {}): Promise<ThrowawayKafka> {
  const libs = opts.libs ?? resolve(repoRoot, '.local/kafka/libs');
  const dir = mkdtempSync(join(tmpdir(), 'throwaway-kafka-'));
  const [port, controllerPort] = [await freePort(), await freePort()];
  const conf = join(dir, 'server.properties');
  writeFileSync(conf, properties(dir, port, controllerPort));
  writeFileSync(
    join(dir, 'log4j.properties'),
    `log4j.rootLogger=WARN, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=${join(dir, 'server.log')}
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
`,
  );
  const java = (args: string[], heap: string) => ['-Xmx' + heap, `-Dlog4j.configuration=file:${join(dir, 'log4j.properties')}`, '-cp', `${libs}/*`, ...args];
  // A cluster id is 16 random bytes, base64url without padding; avoid a leading '-' (as Kafka does).
  const clusterId = `A${randomBytes(16).toString('base64url').slice(1, 22)}`;
  // Short-lived tool JVM: fast start-up over peak speed (as stack.sh does).
  const javaPath = requireProgram('java');
  const format = spawnSync(
    javaPath,
    ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', ...java(['kafka.tools.StorageTool', 'format', '--standalone', '-t', clusterId, '-c', conf], '256m')],
    { encoding: 'utf8', timeout: 60_000 },
  );
  if (format.status !== 0) throw new Error(`kafka storage format failed: ${format.stderr || format.stdout}`);

  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const startTimeoutMs = opts.startTimeoutMs ?? 60_000;

  const kafka: ThrowawayKafka = {
    brokers: `127.0.0.1:${port}`,
    dir,
    async start() {
      if (child) return;
      const c = spawn(javaPath, ['-XX:+UseSerialGC', ...java(['kafka.Kafka', conf], '384m')], { stdio: 'ignore' });
      child = c;
      exited = new Promise((r) => c.once('exit', () => r()));
      let gone = false;
      // `exited` only ever resolves, so nothing is left unhandled; start-up polls `gone` meanwhile.
      void exited.then(() => {
        gone = true;
        if (child === c) child = undefined;
      });
      const deadline = Date.now() + startTimeoutMs;
      while (!(await portOpen(port))) {
        if (gone) throw new Error(`throwaway kafka exited during start-up (log: ${join(dir, 'server.log')})`);
        if (Date.now() > deadline) throw new Error(`throwaway kafka: port ${port} not open after ${startTimeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async stop(o = {}) {
      const c = child;
      if (!c) return;
      c.kill(o.kill ? 'SIGKILL' : 'SIGTERM');
      const timer = setTimeout(() => c.kill('SIGKILL'), o.timeoutMs ?? 30_000);
      await exited;
      clearTimeout(timer);
      child = undefined;
    },
    async destroy() {
      await kafka.stop({ timeoutMs: 10_000 });
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await kafka.start();
  return kafka;
}
