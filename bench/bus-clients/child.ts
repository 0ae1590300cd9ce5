/**
 * One client, one message size: produce N messages (acks=all, idempotent, in sends of B messages,
 * one send at a time as the platform's serial producer does), then read them back with a fresh
 * consumer group. Prints one JSON line: the process's CPU µs per message on each path.
 *
 * The serial producer's cost (issue 43), produce only, with C callers each sending its share of the
 * N messages in sends of B, as the validator's concurrent batches or the gateway's requests do:
 * - `bus`: the platform's producer (createKafkaBus: one send at a time, the partition witness);
 * - `kafkajs-concurrent`: a kafkajs producer of the same settings, the C sends in flight at once.
 *
 *   npx tsx bench/bus-clients/child.ts <kafkajs|platformatic|bus|kafkajs-concurrent> <bytes> <count> <batch> <topic> [callers]
 */
import { randomBytes } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { createLogger } from '@evp/core';
import { createKafkaBus } from '@evp/kafka';

const [client, bytesArg, countArg, batchArg, topic, callersArg] = process.argv.slice(2) as [string, string, string, string, string, string | undefined];
const BYTES = Number(bytesArg);
const COUNT = Number(countArg);
const BATCH = Number(batchArg);
const CALLERS = Number(callersArg ?? 8);
const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');

/** A message as the platform's carry: a key `app:user`, three headers, a value of the given size. */
const messages = Array.from({ length: COUNT }, (_, i) => ({
  key: Buffer.from(`bench-app:user-${i % 500}`),
  value: randomBytes(BYTES),
  headers: { app_id: 'bench-app', request_id: `r-${Math.floor(i / BATCH)}`, key_id: 'bench-sdk' },
}));

/** CPU µs (user + system, every thread of this process) that `run` used, per message. */
async function cpuPerMessage(run: () => Promise<void>): Promise<{ cpuUs: number; wallMs: number }> {
  const wall = performance.now();
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return { cpuUs: (used.user + used.system) / COUNT, wallMs: performance.now() - wall };
}

async function kafkajs() {
  const kafka = new Kafka({ clientId: 'bus-clients-bench', brokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 5 });
  await producer.connect();
  const produce = await cpuPerMessage(async () => {
    for (let i = 0; i < COUNT; i += BATCH) {
      await producer.sendBatch({ topicMessages: [{ topic, messages: messages.slice(i, i + BATCH) }], acks: -1 });
    }
  });
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: `bus-clients-${randomBytes(6).toString('hex')}`, maxBytesPerPartition: 1_048_576 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let seen = 0;
  let started = performance.now();
  let before = process.cpuUsage();
  // Measured from the moment the group is joined (before the first fetch): joining is not a per-message cost.
  consumer.on(consumer.events.GROUP_JOIN, () => {
    [started, before] = [performance.now(), process.cpuUsage()];
  });
  const consume = await new Promise<{ cpuUs: number; wallMs: number }>((done) => {
    void consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        seen += batch.messages.length;
        if (seen >= COUNT) {
          const used = process.cpuUsage(before);
          done({ cpuUs: (used.user + used.system) / COUNT, wallMs: performance.now() - started });
        }
      },
    });
  });
  await consumer.disconnect();
  return { produce, consume };
}

async function platformatic() {
  // An ES module only: loaded where it is used.
  const { Consumer, MessagesStreamModes, ProduceAcks, Producer } = await import('@platformatic/kafka');
  const producer = new Producer({ clientId: 'bus-clients-bench', bootstrapBrokers: brokers, idempotent: true, acks: ProduceAcks.ALL });
  const produce = await cpuPerMessage(async () => {
    for (let i = 0; i < COUNT; i += BATCH) {
      await producer.send({
        messages: messages.slice(i, i + BATCH).map((m) => ({
          topic,
          key: m.key,
          value: m.value,
          // Without serialisers this client takes Buffers only, headers included.
          headers: new Map(Object.entries(m.headers).map(([k, v]) => [Buffer.from(k), Buffer.from(v)])),
        })),
      });
    }
  });
  await producer.close();
  const consumer = new Consumer({
    groupId: `bus-clients-${randomBytes(6).toString('hex')}`,
    clientId: 'bus-clients-bench',
    bootstrapBrokers: brokers,
    maxBytesPerPartition: 1_048_576,
  });
  // consume() resolves once the group is joined; the count starts there, as for kafkajs.
  const stream = await consumer.consume({ topics: [topic], mode: MessagesStreamModes.EARLIEST, autocommit: false });
  let seen = 0;
  const started = performance.now();
  const before = process.cpuUsage();
  const consume = await new Promise<{ cpuUs: number; wallMs: number }>((done) => {
    stream.on('data', () => {
      seen += 1;
      if (seen === COUNT) {
        const used = process.cpuUsage(before);
        done({ cpuUs: (used.user + used.system) / COUNT, wallMs: performance.now() - started });
      }
    });
  });
  await new Promise<void>((ok) => stream.close(() => ok()));
  await new Promise<void>((ok) => consumer.close(true, () => ok()));
  return { produce, consume };
}

/** `CALLERS` callers, each sending every CALLERS-th send of B messages (`list`'s), one after the other. */
async function fromCallers<M>(list: M[], send: (batch: M[]) => Promise<void>): Promise<void> {
  const sends = Math.ceil(COUNT / BATCH);
  await Promise.all(
    Array.from({ length: CALLERS }, async (_, c) => {
      for (let i = c; i < sends; i += CALLERS) await send(list.slice(i * BATCH, (i + 1) * BATCH));
    }),
  );
}

async function bus() {
  const b = createKafkaBus({ brokers, clientId: 'bus-clients-bench', logger: createLogger('bench', 'silent') });
  const producer = await b.producer();
  // The Bus takes string keys (the platform's `app:user`).
  const asText = messages.map((m) => ({ key: m.key.toString(), value: m.value, headers: m.headers }));
  const produce = await cpuPerMessage(() => fromCallers(asText, (batch) => producer.send(topic, batch)));
  await producer.close();
  await b.close();
  return { produce, consume: null };
}

async function kafkajsConcurrent() {
  const kafka = new Kafka({ clientId: 'bus-clients-bench', brokers, logLevel: logLevel.NOTHING });
  // The settings of the platform's producer (kafka-bus.ts), without the serial wrapper.
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 5, retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 1_000 } });
  await producer.connect();
  const produce = await cpuPerMessage(() =>
    fromCallers(messages, async (batch) => {
      await producer.sendBatch({ topicMessages: [{ topic, messages: batch }], acks: -1, timeout: 10_000 });
    }),
  );
  await producer.disconnect();
  return { produce, consume: null };
}

const CASES: Record<string, () => Promise<object>> = { kafkajs, platformatic, bus, 'kafkajs-concurrent': kafkajsConcurrent };
const run = CASES[client];
if (!run) throw new Error(`unknown client ${client}`);
run().then(
  (r) => {
    process.stdout.write(`${JSON.stringify({ client, bytes: BYTES, ...r })}\n`);
    process.exit(0);
  },
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
