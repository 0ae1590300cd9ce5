import pino from 'pino';
import { InfraError, type BusMessage } from '@evp/core';
import { uniqueName } from '@evp/testkit';
import { createKafkaBus } from './kafka-bus';

const brokers = (process.env.KAFKA_BROKERS as string).split(',');

/**
 * A send that fails (here: to a topic that does not exist, auto-creation being off) is not
 * acknowledged, and the producer it ran on is replaced by one with a new producer id; it is not
 * sent again (only a send kafkajs resolved without writing every partition is); the sends after it,
 * on the same BusProducer, are written exactly once and in order. (The cluster case —
 * sequence numbers lost when a leader dies — is fault scenario k.)
 */
describe('KafkaBus producer after a failed send', () => {
  it('rejects the failed send, opens a new producer, and writes the next sends once each, in order', async () => {
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(String(JSON.parse(line).msg)) });
    const bus = createKafkaBus({ brokers, clientId: uniqueName('replace-it'), logger, produceTimeoutMs: 4_000 });
    try {
      const topic = uniqueName('replace');
      await bus.ensureTopics([{ name: topic, partitions: 1 }]);
      const producer = await bus.producer();
      await producer.send(topic, [{ key: 'k', value: Buffer.from('before') }]);

      const failed = await producer.send(uniqueName('no-such-topic'), [{ key: 'k', value: Buffer.from('lost') }]).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failed).toBeInstanceOf(InfraError);
      expect((failed as InfraError).retriable).toBe(true);
      expect(warnings.filter((w) => w.startsWith('produce failed: the producer is replaced'))).toHaveLength(1);

      for (const v of ['after-1', 'after-2', 'after-3']) await producer.send(topic, [{ key: 'k', value: Buffer.from(v) }]);
      await producer.close();

      const read: BusMessage[] = [];
      await bus.scan(topic, 0, (m) => void read.push(m));
      expect(read.map((m) => [m.offset, m.value.toString()])).toEqual([
        ['0', 'before'],
        ['1', 'after-1'],
        ['2', 'after-2'],
        ['3', 'after-3'],
      ]);
    } finally {
      await bus.close();
    }
  }, 60_000);
});
