import { createLogger, type Analytics } from '@evp/core';
import { uniqueName } from '@evp/testkit';
import { createEmbeddedParts } from './embedded-parts';
import { startPipeline, type RunningPipeline } from './pipeline';
import { defineSkeletonScenario, e2eKeys } from './testing/scenario';

describe('walking skeleton, embedded mode (in-process bus and registry, chdb, in-memory store)', () => {
  let pipeline: RunningPipeline;
  let analytics: Analytics;
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database: uniqueName('e2e').replace(/-/g, '_') });

  beforeAll(async () => {
    analytics = parts.analytics;
    pipeline = await startPipeline({ parts, keys: e2eKeys(), logger: createLogger('e2e', 'silent'), sinkFlushMs: 50 });
  });
  afterAll(async () => {
    await pipeline.stop();
    await parts.bus.close();
  });

  defineSkeletonScenario(() => ({ pipeline, analytics }));
});
