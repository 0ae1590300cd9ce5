import { createLogger, type Analytics } from '@evp/core';
import { uniqueName } from '@evp/testkit';
import { createEmbeddedParts } from './embedded-parts';
import { startPipeline, type RunningPipeline } from './pipeline';
import { defineSkeletonScenario, e2eKeys } from './testing/scenario';
import { defineCampaignScenario } from './testing/campaigns-scenario';
import { defineErasureScenario } from './testing/erasure-scenario';
import { defineSegmentScenario, SCENARIO_SEGMENT_CONFIG, TestClock } from './testing/segments-scenario';

describe('walking skeleton, embedded mode (in-process bus and registry, chdb, in-memory store)', () => {
  let pipeline: RunningPipeline;
  const clock = new TestClock();
  let analytics: Analytics;
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database: uniqueName('e2e').replace(/-/g, '_') });

  beforeAll(async () => {
    analytics = parts.analytics;
    pipeline = await startPipeline({
      parts,
      keys: e2eKeys(),
      logger: createLogger('e2e', 'silent'),
      sinkFlushMs: 50,
      now: clock.now,
      segments: SCENARIO_SEGMENT_CONFIG,
      privacyHashKey: 'e2e privacy hash key, 32 bytes long',
    });
  });
  afterAll(async () => {
    await pipeline.stop();
    await parts.bus.close();
  });

  defineSkeletonScenario(() => ({ pipeline, analytics }));
  defineSegmentScenario(() => ({ pipeline, bus: parts.bus, registry: parts.registry, clock }));
  defineCampaignScenario(() => ({ pipeline, bus: parts.bus, registry: parts.registry, clock }));
  defineErasureScenario(() => ({ pipeline, analytics: parts.analytics, bus: parts.bus }));
});
