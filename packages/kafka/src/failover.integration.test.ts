import { spawn } from 'node:child_process';
import { join } from 'node:path';
import pino from 'pino';
import type { BusMessage, Subscription } from '@evp/core';
import { uniqueName, waitFor } from '@evp/testkit';
import { createKafkaBus } from './kafka-bus';

const brokers = process.env.KAFKA_BROKERS as string;
const logger = pino({ level: 'error' });

describe('kafka consumer failover', () => {
  const bus = createKafkaBus({ brokers: brokers.split(','), clientId: uniqueName('failover-it'), logger });
  const subs: Subscription[] = [];
  afterAll(async () => {
    await Promise.all(subs.map((s) => s.stop()));
    await bus.close();
  });

  it("moves a killed consumer's partitions to the surviving member within the 10 s session timeout (+ rejoin)", async () => {
    const topic = uniqueName('failover');
    const groupId = uniqueName('g');
    await bus.ensureTopics([{ name: topic, partitions: 2 }]);
    const producer = await bus.producer();
    const tick = (n: number) =>
      producer.send(
        topic,
        Array.from({ length: 10 }, (_, k) => ({ key: `k${k}`, value: Buffer.from(String(n)) })),
      );

    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'testing/consume-child.ts'), brokers, topic, groupId], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const childPartitions = new Set<number>();
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      for (const line of chunk.split('\n').filter(Boolean)) childPartitions.add(Number(line.split(' ')[0]));
    });
    try {
      let n = 0;
      await waitFor(async () => (await tick(n++), childPartitions.size > 0), { timeoutMs: 60_000, intervalMs: 500, what: 'the child consumer to join' });

      const seen: { at: number; m: BusMessage }[] = [];
      subs.push(await bus.subscribe({ groupId, topics: [topic], handleBatch: async (b) => void seen.push(...b.messages.map((m) => ({ at: Date.now(), m }))) }));
      // After the rebalance each member owns one partition.
      await waitFor(async () => (await tick(n++), seen.length > 0), { timeoutMs: 60_000, intervalMs: 500, what: 'the second member to get a partition' });
      const mine = seen[seen.length - 1]!.m.partition;
      const theirs = 1 - mine;

      child.kill('SIGKILL');
      const killedAt = Date.now();
      const movedAt = await waitFor(
        async () => {
          await tick(n++);
          return seen.find((s) => s.at > killedAt && s.m.partition === theirs)?.at;
        },
        { timeoutMs: 60_000, intervalMs: 250, what: "the killed member's partition to move" },
      );
      const seconds = (movedAt - killedAt) / 1000;
      process.stdout.write(`failover after kill -9: ${seconds.toFixed(1)} s\n`);
      expect(seconds).toBeLessThan(16);
    } finally {
      child.kill('SIGKILL');
      await producer.close();
    }
  }, 180_000);

  it('keeps heartbeating while a handler runs longer than the session timeout: no rebalance, no redelivery', async () => {
    const topic = uniqueName('long-batch');
    await bus.ensureTopics([{ name: topic, partitions: 1 }]);
    const producer = await bus.producer();
    await producer.send(topic, [{ key: 'k', value: Buffer.from('slow') }]);
    const deliveries: string[] = [];
    subs.push(
      await bus.subscribe({
        groupId: uniqueName('g'),
        topics: [topic],
        handleBatch: async (b) => {
          deliveries.push(...b.messages.map((m) => m.offset));
          // Longer than the 10 s session timeout: without heartbeats the member would be evicted,
          // its commit refused and the batch delivered again.
          if (b.messages.some((m) => m.value.toString() === 'slow')) await new Promise((r) => setTimeout(r, 14_000));
        },
      }),
    );
    await waitFor(() => deliveries.length >= 1, { timeoutMs: 60_000, what: 'the slow message' });
    await waitFor(async () => (deliveries.includes('1') ? true : (await producer.send(topic, [{ key: 'k', value: Buffer.from('next') }]), false)), {
      timeoutMs: 60_000,
      intervalMs: 2_000,
      what: 'a later message after the slow batch',
    });
    expect(deliveries.filter((o) => o === '0')).toEqual(['0']);
    await producer.close();
  }, 120_000);

  it('reports a consumer the broker refuses for good as dead (health and onDead), not as running', async () => {
    // The broker's group.min.session.timeout.ms is 6 s: a 1 s session is refused at join with
    // INVALID_SESSION_TIMEOUT, which no retry cures; kafkajs crashes the consumer without a restart.
    const refused = createKafkaBus({
      brokers: brokers.split(','),
      clientId: uniqueName('dead-it'),
      logger: pino({ level: 'silent' }),
      sessionTimeoutMs: 1_000,
    });
    const topic = uniqueName('dead');
    await refused.ensureTopics([{ name: topic, partitions: 1 }]);
    const deaths: string[] = [];
    const sub = await refused.subscribe({
      groupId: uniqueName('g'),
      topics: [topic],
      handleBatch: async () => undefined,
      onDead: (err) => void deaths.push(err.message),
    });
    try {
      const startedAt = Date.now();
      const health = await waitFor(() => (sub.health().state === 'dead' ? sub.health() : undefined), {
        timeoutMs: 30_000,
        what: 'the refused consumer to be reported dead',
      });
      expect(health).toEqual({ state: 'dead', error: expect.stringMatching(/session timeout/i) });
      expect(deaths).toEqual([health.state === 'dead' ? health.error : '']);
      expect(Date.now() - startedAt).toBeLessThan(10_000);
    } finally {
      await sub.stop();
      await refused.close();
    }
  }, 60_000);
});
