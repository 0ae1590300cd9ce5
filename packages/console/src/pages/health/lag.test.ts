import { groupLags, partitionLags } from './lag';

describe('consumer lag from /metrics', () => {
  const metrics = [
    '# HELP consumer_lag_messages Messages behind',
    'consumer_lag_messages{group="validator",topic="events.raw",partition="1"} 4',
    'consumer_lag_seconds{group="validator",topic="events.raw",partition="1"} 2.5',
    'consumer_lag_messages{group="validator",topic="events.raw",partition="0"} 6',
    'consumer_lag_seconds{group="validator",topic="events.raw",partition="0"} 0.5',
    'consumer_lag_messages{group="segmenter.sink",topic="events.valid",partition="0"} 0',
    'http_requests_total{route="/x"} 3',
  ].join('\n');

  it('reads each partition’s messages and seconds, sorted by group, topic, partition', () => {
    expect(partitionLags(metrics)).toEqual([
      { group: 'segmenter.sink', topic: 'events.valid', partition: 0, messages: 0, seconds: 0 },
      { group: 'validator', topic: 'events.raw', partition: 0, messages: 6, seconds: 0.5 },
      { group: 'validator', topic: 'events.raw', partition: 1, messages: 4, seconds: 2.5 },
    ]);
  });

  it('totals a group: messages summed, the largest lag in seconds', () => {
    expect(groupLags(partitionLags(metrics))).toEqual([
      { group: 'segmenter.sink', partitions: 1, messages: 0, seconds: 0 },
      { group: 'validator', partitions: 2, messages: 10, seconds: 2.5 },
    ]);
    expect(partitionLags('')).toEqual([]);
  });
});
