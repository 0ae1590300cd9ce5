import type { ConsumerLag, DeadLetterCount } from '@evp/core';
import { busMetrics } from './metrics';

describe('the bus’s metrics', () => {
  let counts: DeadLetterCount[] = [];
  let lags: ConsumerLag[] = [];
  const registry = busMetrics({ deadLetterCounts: () => counts, consumerLag: () => lags });
  beforeEach(() => {
    counts = [];
    lags = [];
  });

  it('dead_letters_total: the bus’s counts by source topic and group at each scrape', async () => {
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

  it('consumer_lag_messages and consumer_lag_seconds: every group’s lag per partition at each scrape', async () => {
    expect(await registry.metrics()).not.toContain('consumer_lag_messages{');
    lags = [
      { group: 'segmenter-sink', topic: 'events.core', partition: 0, messages: 12, seconds: 1.5 },
      { group: 'validator', topic: 'ingest.raw', partition: 3, messages: 0, seconds: 0 },
    ];
    const text = await registry.metrics();
    expect(text).toContain(
      [
        'consumer_lag_messages{group="segmenter-sink",topic="events.core",partition="0"} 12',
        'consumer_lag_messages{group="validator",topic="ingest.raw",partition="3"} 0',
      ].join('\n'),
    );
    expect(text).toContain(
      [
        'consumer_lag_seconds{group="segmenter-sink",topic="events.core",partition="0"} 1.5',
        'consumer_lag_seconds{group="validator",topic="ingest.raw",partition="3"} 0',
      ].join('\n'),
    );
    lags = [];
    expect(await registry.metrics()).not.toContain('consumer_lag_messages{');
  });
});
