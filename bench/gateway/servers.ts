/**
 * The two servers under test, one per child process (`tsx servers.ts gateway|baseline`), so the load
 * generator never shares their event loop. Both use the same Kafka producer (createKafkaBus: acks=all,
 * idempotent, no compression) and produce the same bytes, key and headers per request.
 * `gateway-hs256` / `gateway-es256`: the gateway with its app enforcing user tokens, verified with the
 * HS256 secret (BENCH_HS_SECRET) or the ES256 public JWK (BENCH_ES_JWK) the run signed them with.
 * Env: KAFKA_BROKERS, REDIS_URL, BENCH_TOPIC, BENCH_KEY, BENCH_COALESCE. Prints `LISTENING <port>` when ready.
 */
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import pino from 'pino';
import { rawHeaders } from '@evp/contract';
import { KeyRing, createLogger, type KeysFile } from '@evp/core';
import { listen } from '@evp/http';
import { createKafkaBus } from '@evp/kafka';
import { coalescingProducer, createGatewayApp, createRedisRateLimiter } from '@evp/gateway';

const env = process.env as Record<string, string>;
const topic = env.BENCH_TOPIC as string;

/** The bench app's SDK key; with a token variant, its user_token key and the app in enforce. */
function benchKeys(which: string): KeysFile {
  const sdk = { id: 'bench', app_id: 'bench-app', role: 'sdk' as const, key: env.BENCH_KEY! };
  if (which === 'gateway') return { keys: [sdk] };
  const tokenKey =
    which === 'gateway-hs256'
      ? { id: 'bench-hs', app_id: 'bench-app', role: 'user_token' as const, alg: 'HS256' as const, key: env.BENCH_HS_SECRET! }
      : {
          id: 'bench-es',
          app_id: 'bench-app',
          role: 'user_token' as const,
          alg: 'ES256' as const,
          jwk: JSON.parse(env.BENCH_ES_JWK!) as { kty: 'EC'; crv: 'P-256'; x: string; y: string },
        };
  return { keys: [sdk, tokenKey], apps: { 'bench-app': { user_tokens: 'enforce' } } };
}

async function main(which: string) {
  const quiet = pino({ level: 'warn' });
  const bus = createKafkaBus({ brokers: env.KAFKA_BROKERS!.split(','), clientId: `bench-${which}`, logger: quiet, produceTimeoutMs: 5000 });
  // Same producer for both: the gateway's coalescing wrapper (BENCH_COALESCE=0: one produce per request).
  const plain = await bus.producer();
  const producer = env.BENCH_COALESCE === '0' ? plain : coalescingProducer(plain, { queueTimeoutMs: 5000 });
  let port: number;
  if (which.startsWith('gateway')) {
    // As in production: info-level access log (serialised, written to /dev/null), Redis rate limit.
    const logger = createLogger('gateway', 'info', pino.destination({ dest: '/dev/null', sync: false }));
    const redis = new Redis(env.REDIS_URL!, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    const { app } = createGatewayApp({
      producer,
      keys: new KeyRing(benchKeys(which)),
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
