import { allTopics } from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { useMigratedChdb, waitFor } from '@evp/testkit';
import { expectExpiry, runExpiryScenario } from '../testing';

// The expiry of ended memberships on the engine's timer, on the embedded adapters (in-process bus
// and registry, chdb); membership-expiry.integration.test.ts runs the same scenario on Kafka.
const chdb = useMigratedChdb('memexpiry');

describe('expiry of ended memberships (engine timer, embedded adapters)', () => {
  it('runs every interval of the injected clock: a failed round is logged and retried; ended keys go; re-entries get a seq above the last', async () => {
    const bus = createInProcessBus({ retryDelayMs: 5, maxRetryDelayMs: 20 });
    await bus.ensureTopics(allTopics());
    const result = await runExpiryScenario({
      analytics: chdb.analytics,
      bus,
      registry: createInProcessRegistry(),
      app: 'exp-app',
      otherApp: 'exp-other',
      waitFor,
    });
    expectExpiry(result);
  });
});
