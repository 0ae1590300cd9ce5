import { Counter, Histogram, type Registry } from 'prom-client';

/** What an operator watches of the segment engine: work consumed, evaluations and their time, changes, recoveries. */
export function createEngineMetrics(metricRegistry: Registry) {
  return {
    workItems: new Counter({
      name: 'segmenter_segments_work_items_total',
      help: 'Work items consumed from segments.work, by kind (users, full) and outcome (evaluated, skipped: a later full evaluation covered it)',
      labelNames: ['kind', 'outcome'] as const,
      registers: [metricRegistry],
    }),
    workProduced: new Counter({
      name: 'segmenter_segments_work_produced_total',
      help: 'Work items produced to segments.work, by kind and by what asked (sink, schedule, request)',
      labelNames: ['kind', 'source'] as const,
      registers: [metricRegistry],
    }),
    evaluations: new Counter({
      name: 'segmenter_segments_evaluations_total',
      help: 'Segment evaluations, by kind (users: some users, full: every user)',
      labelNames: ['kind'] as const,
      registers: [metricRegistry],
    }),
    evaluationSeconds: new Histogram({
      name: 'segmenter_segments_evaluation_seconds',
      help: 'Duration of one segment evaluation (query, diff, state writes, records), by kind',
      labelNames: ['kind'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [metricRegistry],
    }),
    changes: new Counter({
      name: 'segmenter_segments_changes_total',
      help: 'Membership changes published to segments.membership, by change (entered, exited)',
      labelNames: ['change'] as const,
      registers: [metricRegistry],
    }),
    recovered: new Counter({
      name: 'segmenter_segments_recovered_changes_total',
      help: 'Changes a writer left pending, by outcome (found: already on the topic; published: produced by the recovery)',
      labelNames: ['outcome'] as const,
      registers: [metricRegistry],
    }),
  };
}

export type EngineMetrics = ReturnType<typeof createEngineMetrics>;
