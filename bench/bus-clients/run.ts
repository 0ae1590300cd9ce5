/**
 * The Kafka clients side by side at the bus level (issue 43): CPU µs per message produced (acks=all,
 * idempotent) and consumed, for kafkajs (the Bus adapter's client) and @platformatic/kafka, at
 * 100-byte and 1-KB messages, same broker, same run. Each case runs in a fresh process (child.ts) on
 * a fresh 3-partition topic; rounds alternate the clients so background load hits both alike.
 *
 *   KAFKA_BROKERS=127.0.0.1:9092 npx tsx bench/bus-clients/run.ts [--count 50000] [--batch 100] [--rounds 3]
 *
 * `--clients bus,kafkajs-concurrent --callers 8` measures the serial producer's cost instead
 * (produce only; child.ts): the platform's producer against kafkajs's own with the sends overlapping.
 *
 * @confluentinc/kafka-javascript is not measured: its install downloads a prebuilt librdkafka binary
 * from outside the npm registry (docs/benchmarks.md).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { numberOption, textOption } from '../options';

const COUNT = numberOption('count', 50_000);
const BATCH = numberOption('batch', 100);
const ROUNDS = numberOption('rounds', 3);
const SIZES = [100, 1024];
const CLIENTS = textOption('clients', 'kafkajs,platformatic').split(',');
const CALLERS = numberOption('callers', 8);
const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');

interface Result {
  client: string;
  bytes: number;
  produce: { cpuUs: number; wallMs: number };
  /** Null for the produce-only cases (bus, kafkajs-concurrent). */
  consume: { cpuUs: number; wallMs: number } | null;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? (s[(s.length - 1) / 2] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};

async function main() {
  const admin = new Kafka({ clientId: 'bus-clients-bench', brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  const made: string[] = [];
  const results: Result[] = [];
  console.log(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; ${COUNT} messages per case, sends of ${BATCH}, ${CALLERS} callers (bus, kafkajs-concurrent)`,
  );
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const bytes of SIZES) {
        // Alternate which client goes first, so neither always meets a warmer broker.
        for (const client of round % 2 ? CLIENTS : [...CLIENTS].reverse()) {
          const topic = `bench-bus-clients-${randomBytes(6).toString('hex')}`;
          await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 1 }], waitForLeaders: true });
          made.push(topic);
          const out = execFileSync(
            process.execPath,
            ['--import', 'tsx', resolve(__dirname, 'child.ts'), client, String(bytes), String(COUNT), String(BATCH), topic, String(CALLERS)],
            {
              encoding: 'utf8',
              env: process.env,
              timeout: 300_000,
            },
          );
          const r = JSON.parse(out.trim().split('\n').pop() as string) as Result;
          results.push(r);
          const path = (p: Result['produce'] | null) => (p ? `${p.cpuUs.toFixed(2)} µs/msg (${Math.round((COUNT / p.wallMs) * 1000)}/s)` : '-');
          console.log(`round ${round} ${client.padEnd(18)} ${String(bytes).padStart(5)} B: produce ${path(r.produce)}, consume ${path(r.consume)}`);
        }
      }
    }
  } finally {
    if (made.length > 0) await admin.deleteTopics({ topics: made }).catch(() => undefined);
    await admin.disconnect();
  }
  const [base, ...others] = CLIENTS as [string, ...string[]];
  console.log(
    `\nmedians over ${ROUNDS} rounds (CPU µs per message, messages/s; ratio = client / ${base}; load average at end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
  );
  console.log(`| size | path | ${CLIENTS.join(' | ')} | ${others.map((o) => `${o} / ${base}`).join(' | ')} |`);
  console.log(`|---:|---|${CLIENTS.map(() => '---:').join('|')}|${others.map(() => '---:').join('|')}|`);
  for (const bytes of SIZES) {
    for (const path of ['produce', 'consume'] as const) {
      const runs = (client: string) => results.filter((r) => r.client === client && r.bytes === bytes).flatMap((r) => r[path] ?? []);
      const cpu = (client: string) => median(runs(client).map((p) => p.cpuUs));
      const rate = (client: string) => median(runs(client).map((p) => (COUNT / p.wallMs) * 1000));
      if (runs(base).length === 0) continue;
      const cells = CLIENTS.map((c) => `${cpu(c).toFixed(2)} µs, ${Math.round(rate(c))}/s`);
      console.log(
        `| ${bytes} B | ${path} | ${cells.join(' | ')} | ${others.map((o) => `${(cpu(o) / cpu(base)).toFixed(2)} CPU, ${(rate(o) / rate(base)).toFixed(2)} rate`).join(' | ')} |`,
      );
    }
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
