import { createLogger } from '@evp/core';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import { uniqueName, useMigratedChdb, waitFor } from '@evp/testkit';
import { expectExpiry, runExpiryScenario } from '../testing';

// The scenario of membership-expiry.test.ts on a real Kafka broker and schema registry: the records
// of the re-entries are read back from the broker and decoded with the registered schema.
const chdb = useMigratedChdb('memexpiryit');
const logger = createLogger('membership-expiry-it', 'silent');

describe('expiry of ended memberships (engine timer, Kafka and the schema registry)', () => {
  it('a failed round is retried; ended keys go; re-entries read back from the broker carry a seq above the last', async () => {
    const topics = { workTopic: uniqueName('exp-work'), membershipTopic: uniqueName('exp-members') };
    const bus = createKafkaBus({ brokers: (process.env.KAFKA_BROKERS as string).split(','), clientId: uniqueName('exp'), logger, sessionTimeoutMs: 6_000 });
    await bus.ensureTopics([
      { name: topics.workTopic, partitions: 1 },
      { name: topics.membershipTopic, partitions: 1 },
    ]);
    try {
      const result = await runExpiryScenario({
        analytics: chdb.analytics,
        bus,
        registry: createConfluentRegistry({ url: process.env.SCHEMA_REGISTRY_URL as string }),
        app: uniqueName('exp-app'),
        otherApp: uniqueName('exp-other'),
        config: { ...topics, groupId: uniqueName('exp-group') },
        waitFor,
      });
      expectExpiry(result);
    } finally {
      await bus.close();
    }
  }, 120_000);
});
