import pino from 'pino';
import { allTopics, followSuppressions, idHash, suppressionKey, topics } from '@evp/core';
import { uniqueName, waitFor } from '@evp/testkit';
import { createKafkaClusterProbe } from './cluster-probe';
import { createKafkaBus } from './kafka-bus';

const brokers = (process.env.KAFKA_BROKERS as string).split(',');
const logger = pino({ level: 'silent' });
const hashKey = 'suppressions-it-key-0123456789abcdef';

describe('the SuppressionSet on Kafka', () => {
  const probe = createKafkaClusterProbe({ brokers, clientId: uniqueName('suppressions-it') });
  const bus = createKafkaBus({ brokers, clientId: uniqueName('suppressions-it'), logger, produceTimeoutMs: 5_000 });
  afterAll(async () => {
    await bus.close();
    await probe.close();
  });

  it('creates privacy.suppressions compacted, reads it whole without a group, and drops a lifted person', async () => {
    await bus.ensureTopics(allTopics().filter((t) => t.name === topics.privacySuppressions));
    expect(await probe.topicConfig(topics.privacySuppressions, 'cleanup.policy')).toBe('compact');
    // The shared broker's topic: an app of this run's own, so other suppressions do not matter.
    const app = uniqueName('app');
    const key = (kind: 'user' | 'patient', id: string) => suppressionKey(app, idHash(hashKey, app, kind, id));
    const producer = await bus.producer();
    await producer.send(topics.privacySuppressions, [
      { key: key('user', 'u-1'), value: Buffer.from('{}') },
      { key: key('patient', 'p-1'), value: Buffer.from('{}') },
    ]);
    const set = await followSuppressions(bus, hashKey);
    await set.ready();
    // Written before the set was opened: known once it is ready.
    expect([set.has(app, 'user', 'u-1'), set.has(app, 'patient', 'p-1'), set.has(app, 'user', 'p-1'), set.has(app, 'user', 'u-2')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(set.has('another-app', 'user', 'u-1')).toBe(false);
    await producer.send(topics.privacySuppressions, [{ key: key('user', 'u-1'), value: null }]);
    await waitFor(() => !set.has(app, 'user', 'u-1') || undefined, { timeoutMs: 20_000, what: 'the lift' });
    expect(set.has(app, 'patient', 'p-1')).toBe(true);
    await set.close();
    await producer.close();
  }, 60_000);
});
