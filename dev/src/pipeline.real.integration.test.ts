import { Redis } from 'ioredis';
import { RedisActionStore, systemClock } from '@evp/actions';
import { createLogger } from '@evp/core';
import { createChdbAnalytics } from '@evp/embedded';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import { deletePrefix, randomActionPrefix, uniqueName } from '@evp/testkit';
import { startPipeline, type PipelineParts, type RunningPipeline } from './pipeline';
import { defineSkeletonScenario, e2eKeys } from './testing/scenario';
import { defineCampaignScenario } from './testing/campaigns-scenario';
import { defineErasureScenario } from './testing/erasure-scenario';
import { defineSegmentScenario, SCENARIO_SEGMENT_CONFIG, TestClock } from './testing/segments-scenario';

describe('walking skeleton on the real stack (Kafka broker, registry REST API, Redis, chdb; validator with 2 encode workers)', () => {
  const logger = createLogger('e2e', 'silent');
  const redis = new Redis(process.env.REDIS_URL as string);
  const prefix = randomActionPrefix();
  const parts: PipelineParts = {
    bus: createKafkaBus({ brokers: (process.env.KAFKA_BROKERS as string).split(','), clientId: 'e2e', logger }),
    registry: createConfluentRegistry({ url: process.env.SCHEMA_REGISTRY_URL as string }),
    analytics: createChdbAnalytics({ path: ':memory:', database: uniqueName('e2e_real').replace(/-/g, '_') }),
    store: new RedisActionStore({ redis, clock: systemClock(), prefix }),
  };
  let pipeline: RunningPipeline;
  const clock = new TestClock();

  beforeAll(async () => {
    pipeline = await startPipeline({
      parts,
      keys: e2eKeys(),
      logger,
      groupSuffix: uniqueName('e2e'),
      sinkFlushMs: 100,
      validatorWorkers: 2,
      now: clock.now,
      segments: SCENARIO_SEGMENT_CONFIG,
      privacyHashKey: 'e2e privacy hash key, 32 bytes long',
    });
  }, 120_000);
  afterAll(async () => {
    await pipeline.stop();
    await parts.bus.close();
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  defineSkeletonScenario(() => ({ pipeline, analytics: parts.analytics }));
  defineSegmentScenario(() => ({ pipeline, bus: parts.bus, registry: parts.registry, clock }));
  defineCampaignScenario(() => ({ pipeline, bus: parts.bus, registry: parts.registry, clock }));
  defineErasureScenario(() => ({ pipeline, analytics: parts.analytics, bus: parts.bus }));
});
