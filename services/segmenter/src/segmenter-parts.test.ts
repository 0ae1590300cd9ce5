import { allTopics, createInMemoryLeaseStore, createLogger, type Bus, type SubscribeOptions } from '@evp/core';
import { createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { useMigratedChdb } from '@evp/testkit';
import type { StoredCampaign } from './campaigns';
import type { SegmenterPart } from './config';
import { createSegmenterParts } from './segmenter-parts';

const db = useMigratedChdb('segmenter_parts');

/** The in-process bus, recording the consumer group of every subscription. */
function recordingBus(): { bus: Bus; groups: string[] } {
  const inner = createInProcessBus();
  const groups: string[] = [];
  const bus = new Proxy(inner, {
    get: (target, key) =>
      key === 'subscribe'
        ? (o: SubscribeOptions) => {
            groups.push(o.groupId);
            return target.subscribe(o);
          }
        : Reflect.get(target, key),
  });
  return { bus, groups };
}

async function started(parts?: SegmenterPart[]) {
  const { bus, groups } = recordingBus();
  await bus.ensureTopics(allTopics());
  const p = createSegmenterParts({
    analytics: db.analytics,
    bus,
    registry: createInProcessRegistry(),
    logger: createLogger('segmenter-parts-test', 'silent'),
    lease: createInMemoryLeaseStore(),
    ...(parts ? { parts } : {}),
  });
  await p.start();
  return { p, bus, groups };
}

describe('createSegmenterParts: a replica runs the chosen parts', () => {
  it('runs every consumer group by default', async () => {
    const { p, bus, groups } = await started();
    try {
      expect(groups).toEqual(['segmenter-segments', 'segmenter-campaigns', 'segmenter-campaign-entries', 'segmenter-sink']);
      expect(Object.keys(p.consumers)).toEqual(['segmenter-sink', 'segmenter-segments', 'segmenter-campaigns']);
    } finally {
      await p.stop();
      await bus.close();
    }
  });

  it.each<[SegmenterPart[], string[], string[]]>([
    [['sink'], ['segmenter-sink'], ['segmenter-sink']],
    [['segments'], ['segmenter-segments'], ['segmenter-segments']],
    [['campaigns'], ['segmenter-campaigns', 'segmenter-campaign-entries'], ['segmenter-campaigns']],
    [
      ['sink', 'campaigns'],
      ['segmenter-campaigns', 'segmenter-campaign-entries', 'segmenter-sink'],
      ['segmenter-sink', 'segmenter-campaigns'],
    ],
    [['api'], [], []],
  ])('parts %j join exactly the groups %j; readiness watches %j', async (parts, wantGroups, wantConsumers) => {
    const { p, bus, groups } = await started(parts);
    try {
      expect(groups).toEqual(wantGroups);
      expect(Object.keys(p.consumers)).toEqual(wantConsumers);
      // The producing sides run whatever the parts: a recompute request (the API's) and the sink's
      // hooks produce instead of failing as "not started".
      await expect(p.segments.engine.scheduler.requestRecompute('app-parts', 'seg-1')).resolves.toBeUndefined();
      // (triggerApi reads only the campaign's id.)
      const campaign = { id: 'camp-1' } as StoredCampaign;
      await expect(p.campaigns.worker.triggerApi('app-parts', campaign, ['u1', 'u1'])).resolves.toMatchObject({ users: 1 });
    } finally {
      await p.stop();
      await bus.close();
    }
  });
});
