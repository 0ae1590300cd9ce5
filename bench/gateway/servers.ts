/**
 * The two servers under test, one per child process (`tsx servers.ts gateway|baseline`), so the load
 * generator never shares their event loop. Both use the same Kafka producer (createKafkaBus: acks=all,
 * idempotent, no compression) and produce the same bytes, key and headers per request.
 * Env: KAFKA_BROKERS, REDIS_URL, BENCH_TOPIC, BENCH_KEY, BENCH_COALESCE. Prints `LISTENING <port>` when ready.
 */
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import pino from 'pino';
import { rawHeaders } from '@evp/contract';
import { KeyRing, createLogger } from '@evp/core';
import { listen } from '@evp/http';
import { createKafkaBus } from '@evp/kafka';
import { coalescingProducer, createGatewayApp, createRedisRateLimiter } from '@evp/gateway';

const env = process.env as Record<string, string>;
const topic = env.BENCH_TOPIC as string;

async function main(which: string) {
  const quiet = pino({ level: 'warn' });
  const bus = createKafkaBus({ brokers: env.KAFKA_BROKERS!.split(','), clientId: `bench-${which}`, logger: quiet, produceTimeoutMs: 5000 });
  // Same producer for both: the gateway's coalescing wrapper (BENCH_COALESCE=0: one produce per request).
  const plain = await bus.producer();
  const producer = env.BENCH_COALESCE === '0' ? plain : coalescingProducer(plain, { queueTimeoutMs: 5000 });
  let port: number;
  if (which === 'gateway') {
    // As in production: info-level access log (serialised, written to /dev/null), Redis rate limit.
    const logger = createLogger('gateway', 'info', pino.destination({ dest: '/dev/null', sync: false }));
    const redis = new Redis(env.REDIS_URL!, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    const { app } = createGatewayApp({
      producer,
      keys: new KeyRing({ keys: [{ id: 'bench', app_id: 'bench-app', role: 'sdk', key: env.BENCH_KEY! }] }),
      logger,
      corsOrigins: ['*'],
      rateLimiter: createRedisRateLimiter({ redis, policy: { limit: 600_000, windowMs: 60_000 }, prefix: `bench:gw:rl:${randomUUID()}:` }),
      limits: { maxBodyBytes: 5 * 1024 * 1024, maxEventsPerRequest: 5000, retryAfterSeconds: 5 },
      rawTopic: topic,
    });
    port = (await listen(app, 0, '127.0.0.1')).port;
  } else {
    // The floor: read, JSON.parse, produce the same message, answer. No auth, limits, metrics or logs.
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const body = JSON.parse(text) as { id: string; data: unknown[] };
        const id = randomUUID();
        const headers = {
          [rawHeaders.appId]: 'bench-app',
          [rawHeaders.requestId]: id,
          [rawHeaders.receivedAt]: String(Date.now()),
          [rawHeaders.keyId]: 'bench',
          [rawHeaders.payloadKind]: 'log',
        };
        producer.send(topic, [{ key: `bench-app:${body.id}`, value: Buffer.from(text), headers }]).then(
          () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ accepted: body.data.length, request_id: id })),
          () => res.writeHead(503).end(),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  }
  console.log(`LISTENING ${port}`);
}

void main(process.argv[2] ?? 'gateway').catch((err) => {
  console.error(err);
  process.exit(1);
});
// Exit cleanly on SIGTERM so `node --cpu-prof` can write its profile.
process.once('SIGTERM', () => process.exit(0));
