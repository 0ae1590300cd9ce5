import type { DeadLetterCount } from '@evp/core';
import { deadLetterMetrics } from './dead-letter-metrics';

describe('dead_letters_total', () => {
  it('reports the bus’s counts by source topic and group at each scrape', async () => {
    let counts: DeadLetterCount[] = [];
    const registry = deadLetterMetrics({ deadLetterCounts: () => counts });
    expect(await registry.metrics()).not.toContain('dead_letters_total{');
    counts = [
      { sourceTopic: 'actions.requested', group: 'action-store.requests', count: 2 },
      { sourceTopic: 'events.core', group: 'segmenter-sink', count: 1 },
    ];
    expect(await registry.metrics()).toContain(
      [
        'dead_letters_total{source_topic="actions.requested",group="action-store.requests"} 2',
        'dead_letters_total{source_topic="events.core",group="segmenter-sink"} 1',
      ].join('\n'),
    );
    counts = [{ sourceTopic: 'actions.requested', group: 'action-store.requests', count: 3 }];
    const text = await registry.metrics();
    expect(text).toContain('dead_letters_total{source_topic="actions.requested",group="action-store.requests"} 3');
    expect(text).not.toContain('events.core');
  });
});
