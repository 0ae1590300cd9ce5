/**
 * Gateway throughput on the real broker, beside a bare node:http baseline in the same run (issue 4).
 *
 *   KAFKA_BROKERS=127.0.0.1:9092 REDIS_URL=redis://127.0.0.1:6379 npx tsx bench/gateway/run.ts [--seconds 8] [--rounds 2] [--connections 32] [--tokens]
 *
 * `--tokens` adds two gateways whose app enforces user tokens (docs/keys.md, "User tokens"): every
 * request carries its user's token, HS256 in one and ES256 in the other, verified on the ingest path;
 * the plain gateway (no token, policy off) is the reference in the same run.
 *
 * Each server runs in its own process (servers.ts) and writes to its own fresh topic (3 partitions,
 * deleted at the end), never ingest.raw. Rounds alternate baseline/gateway so background noise hits
 * both. Every request is one envelope of 50 events (payload.ts) from one of 500 users. At the end the
 * topics' offsets are checked against the 2xx counts: a 200 must mean a message in Kafka.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { es256UserTokenKeys, signUserToken } from '@evp/testkit';
import { Kafka, logLevel } from 'kafkajs';
import { envelopeBody } from './payload';
import { numberOption } from '../options';

const SECONDS = numberOption('seconds', 8);
const ROUNDS = numberOption('rounds', 2);
const CONNECTIONS = numberOption('connections', 32);
const PROFILE_DIR = process.argv.includes('--profile') ? process.argv[process.argv.indexOf('--profile') + 1] : undefined;
const EVENTS = 50;
const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const KEY = `bench-${randomBytes(12).toString('hex')}`;
const HS_SECRET = randomBytes(32).toString('base64url');
const SERVERS = process.argv.includes('--tokens') ? (['baseline', 'gateway', 'gateway-hs256', 'gateway-es256'] as const) : (['baseline', 'gateway'] as const);
type Server = (typeof SERVERS)[number];

function startServer(which: Server, topic: string, env: Record<string, string>): Promise<{ port: number; child: ChildProcess }> {
  // `--profile <dir>`: each server writes a V8 CPU profile there when it stops.
  const profile = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', resolve(__dirname, 'servers.ts'), which], {
    env: { ...process.env, ...env, KAFKA_BROKERS: brokers.join(','), REDIS_URL: redisUrl, BENCH_TOPIC: topic, BENCH_KEY: KEY },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((ok, fail) => {
    child.once('exit', (code) => fail(new Error(`${which} server exited with ${code}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^LISTENING (\d+)$/.exec(line);
      if (m) ok({ port: Number(m[1]), child });
    });
  });
}

/**
 * CPU seconds a server process has used (user + system, all threads) from /proc. Divided by the
 * requests it answered, this is the server's own cost per request: unlike wall-clock throughput it
 * does not move when the load generator or the broker compete for the same cores.
 */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime in clock ticks (USER_HZ = 100)
}

const bodies = Array.from({ length: 500 }, (_, u) => envelopeBody(u, EVENTS));

/** Each user's token per signing algorithm (signed once: the bench measures verifying, not signing). */
const tokens: Partial<Record<Server, string[]>> = {};

async function load(port: number, seconds: number, userTokens?: string[]) {
  let i = 0;
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/v1/ingest/log`,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        setupRequest: (req) => {
          const u = i++ % bodies.length;
          return { ...req, body: bodies[u], ...(userTokens ? { headers: { ...req.headers, 'x-evp-user-token': userTokens[u] as string } } : {}) };
        },
      },
    ],
  });
  return { ok: result['2xx'], other: result.non2xx + result.errors + result.timeouts, seconds, p50: result.latency.p50, p99: result.latency.p99 };
}

async function main() {
  const id = randomBytes(4).toString('hex');
  const topicOf = Object.fromEntries(SERVERS.map((s) => [s, `bench.${s}.${id}`])) as Record<Server, string>;
  const es = await es256UserTokenKeys();
  const now = Math.floor(Date.now() / 1000);
  const claims = (u: number) => ({ sub: `user-${u}`, aud: 'bench-app', iat: now, exp: now + 3600 });
  tokens['gateway-hs256'] = await Promise.all(bodies.map((_, u) => signUserToken(claims(u), { kid: 'bench-hs', secret: HS_SECRET })));
  tokens['gateway-es256'] = await Promise.all(bodies.map((_, u) => signUserToken(claims(u), { kid: 'bench-es', privateKey: es.privateKey })));
  const serverEnv = { BENCH_HS_SECRET: HS_SECRET, BENCH_ES_JWK: JSON.stringify(es.jwk) };
  const kafka = new Kafka({ clientId: 'bench-admin', brokers, logLevel: logLevel.ERROR });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ waitForLeaders: true, topics: Object.values(topicOf).map((topic) => ({ topic, numPartitions: 3, replicationFactor: 1 })) });
  const servers = {} as Record<Server, { port: number; child: ChildProcess }>;
  for (const which of SERVERS) servers[which] = await startServer(which, topicOf[which], serverEnv);
  const acked = Object.fromEntries(SERVERS.map((s) => [s, 0])) as Record<Server, number>;
  const rows: { which: string; round: number; eps: number; p50: number; p99: number; other: number; cpuUs: number }[] = [];
  try {
    for (const which of SERVERS) acked[which] += (await load(servers[which].port, 2, tokens[which])).ok; // warm-up (JIT, connections)
    for (let round = 1; round <= ROUNDS; round++) {
      for (const which of SERVERS) {
        const cpuBefore = cpuSeconds(servers[which].child.pid as number);
        const r = await load(servers[which].port, SECONDS, tokens[which]);
        const cpuUs = ((cpuSeconds(servers[which].child.pid as number) - cpuBefore) * 1e6) / Math.max(1, r.ok);
        acked[which] += r.ok;
        rows.push({ which, round, eps: (r.ok * EVENTS) / r.seconds, p50: r.p50, p99: r.p99, other: r.other, cpuUs });
        console.error(
          `${which} round ${round}: ${Math.round((r.ok * EVENTS) / r.seconds)} events/s, p50 ${r.p50} ms, p99 ${r.p99} ms, server CPU ${Math.round(cpuUs)} µs/request, non-2xx/errors ${r.other}`,
        );
      }
    }
    // Every 2xx must be a message in its topic (one envelope per request → one message).
    const inTopic: Record<string, number> = {};
    for (const [which, topic] of Object.entries(topicOf)) {
      inTopic[which] = (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0);
    }
    const mean = (which: string, f: (r: (typeof rows)[number]) => number) => rows.filter((r) => r.which === which).reduce((n, r) => n + f(r), 0) / ROUNDS;
    const line = (which: string) =>
      `| ${which} | ${Math.round(mean(which, (r) => r.eps)).toLocaleString('en')} | ${mean(which, (r) => r.p50).toFixed(1)} | ${mean(which, (r) => r.p99).toFixed(1)} | ${Math.round(mean(which, (r) => r.cpuUs))} | ${acked[which as Server].toLocaleString('en')} / ${inTopic[which]!.toLocaleString('en')} |`;
    console.log(`\n${ROUNDS} rounds × ${SECONDS} s, ${CONNECTIONS} connections, ${EVENTS} events (${bodies[0]!.length} bytes) per request\n`);
    console.log('| server | events/s (mean) | p50 ms | p99 ms | server CPU µs/request | 2xx requests / messages in topic |');
    console.log('|---|---|---|---|---|---|');
    for (const which of SERVERS) console.log(line(which));
    console.log(`\nratio gateway/baseline (events/s): ${(mean('gateway', (r) => r.eps) / mean('baseline', (r) => r.eps)).toFixed(2)}`);
    console.log(`ratio baseline/gateway (server CPU per request): ${(mean('baseline', (r) => r.cpuUs) / mean('gateway', (r) => r.cpuUs)).toFixed(2)}`);
    for (const which of SERVERS.filter((s) => s.startsWith('gateway-'))) {
      console.log(`ratio ${which}/gateway (server CPU per request): ${(mean(which, (r) => r.cpuUs) / mean('gateway', (r) => r.cpuUs)).toFixed(2)}`);
    }
    if (SERVERS.some((s) => inTopic[s]! < acked[s])) {
      console.log('\nWARNING: fewer messages in a topic than 2xx answers');
      process.exitCode = 1;
    }
  } finally {
    for (const s of Object.values(servers)) s.child.kill('SIGTERM');
    await admin.deleteTopics({ topics: Object.values(topicOf) }).catch(() => undefined);
    await admin.disconnect();
  }
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
