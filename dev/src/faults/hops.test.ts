import { describeHops, describeTrace, hopCounts, traceLost, type Position, type Sightings } from './hops';

const at = (topic: string, partition: number, offset: number): Position => ({ topic, partition, offset: String(offset) });
const markers = (rid: string, n: number) => Array.from({ length: n }, (_, i) => `${rid}:${i}`);

describe('traceLost (the last hop of each lost event)', () => {
  const seen: Sightings = {
    raw: new Map([
      ['on-raw', [at('ingest.raw', 2, 1043)]],
      ['on-topic', [at('ingest.raw', 0, 7)]],
      ['split', [at('ingest.raw', 1, 9)]],
      ['rejected-too', [at('ingest.raw', 1, 10)]],
    ]),
    events: new Map([
      ['on-topic:0', [at('events.core', 1, 500), at('events.core', 1, 900)]],
      ['on-topic:1', [at('events.core', 1, 501)]],
      ['split:0', [at('events.core', 2, 33)]],
    ]),
    rejected: new Map([['rejected-too', [at('ingest.rejected', 0, 4)]]]),
    stored: new Set(['split:1']),
  };

  it('names, per request, where its lost events were last seen, with partition and offset', () => {
    const traces = traceLost(
      [
        { requestId: 'never', markers: markers('never', 50) },
        { requestId: 'on-raw', markers: markers('on-raw', 50) },
        { requestId: 'on-topic', markers: markers('on-topic', 2) },
        { requestId: 'split', markers: markers('split', 3) },
        { requestId: 'rejected-too', markers: markers('rejected-too', 1) },
      ],
      seen,
    );
    expect(traces.map((t) => [t.requestId, t.hop, t.markers.length, t.at])).toEqual([
      ['never', 'acked', 50, []],
      ['on-raw', 'raw', 50, [at('ingest.raw', 2, 1043)]],
      ['on-topic', 'topic', 2, [at('events.core', 1, 500), at('events.core', 1, 900), at('events.core', 1, 501)]],
      ['split', 'topic', 1, [at('events.core', 2, 33)]],
      ['split', 'table', 1, []],
      ['split', 'raw', 1, [at('ingest.raw', 1, 9)]],
      // On raw with a rejection of some other event of it, but this one neither written nor rejected.
      ['rejected-too', 'raw', 1, [at('ingest.raw', 1, 10), at('ingest.rejected', 0, 4)]],
    ]);
    expect(hopCounts(traces)).toEqual({ acked: 50, raw: 52, topic: 3, table: 1 });
    expect(traces.map(describeTrace).slice(0, 3)).toEqual([
      'request never: 50 events acknowledged but not on ingest.raw',
      'request on-raw: 50 events on ingest.raw but not on events.<block> nor ingest.rejected (ingest.raw 2@1043)',
      'request on-topic: 2 events on events.<block> but not in the table (events.core 1@500–900 (3 messages))',
    ]);
    expect(describeHops(hopCounts(traces))).toBe(
      'lost by hop: acknowledged but not on ingest.raw 50; on ingest.raw but not on events.<block> nor ingest.rejected 52; on events.<block> but not in the table 3; in the table after the deadline (late) 1',
    );
  });

  it('shows positions per topic and partition, as a range when there are several', () => {
    const many = new Map([['m:0', [at('events.core', 0, 12), at('events.core', 0, 9), at('events.core', 2, 100), at('events.core', 0, 10)]]]);
    const [t] = traceLost([{ requestId: 'm', markers: ['m:0'] }], { ...seen, events: many });
    expect(describeTrace(t!)).toBe('request m: 1 events on events.<block> but not in the table (events.core 0@9–12 (3 messages), events.core 2@100)');
  });

  it('has nothing to say when nothing was lost', () => {
    expect(traceLost([], seen)).toEqual([]);
    expect(hopCounts([])).toEqual({ acked: 0, raw: 0, topic: 0, table: 0 });
  });
});
