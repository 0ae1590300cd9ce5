import { Counter, Histogram, type Registry } from 'prom-client';

/**
 * Every series the segmenter declares (scripts/lint.js keeps `new Counter/Gauge/Histogram` in
 * metrics.ts files): the sink's, the segment engine's and the campaign worker's, each registered
 * in the registry its part is given. The HTTP series, dead letters and every consumer group's lag
 * are the shared ones of @evp/http.
 */

/**
 * What an operator watches: rows/s (rate of rows_inserted), insert latency, time a handler call waits
 * for its rows to be inserted and freshness (received_at → inserted). How far behind the log the sink
 * is, is its group's `consumer_lag_*` (the bus reports every group's: @evp/http busMetrics).
 */
export function createSinkMetrics(metricRegistry: Registry) {
  return {
    suppressed: new Counter({
      name: 'segmenter_sink_suppressed_total',
      help: 'Rows of suppressed (erased) users and patients dropped, never inserted, by table',
      labelNames: ['table'] as const,
      registers: [metricRegistry],
    }),
    rowsInserted: new Counter({
      name: 'segmenter_sink_rows_inserted_total',
      help: 'Rows inserted into ClickHouse, by table',
      labelNames: ['table'] as const,
      registers: [metricRegistry],
    }),
    insertDuration: new Histogram({
      name: 'segmenter_sink_insert_duration_seconds',
      help: 'Duration of one successful ClickHouse insert, by table',
      labelNames: ['table'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [metricRegistry],
    }),
    insertFailures: new Counter({
      name: 'segmenter_sink_insert_failures_total',
      help: 'Failed ClickHouse inserts, by table and whether a retry can help',
      labelNames: ['table', 'retriable'] as const,
      registers: [metricRegistry],
    }),
    batchDuration: new Histogram({
      name: 'segmenter_sink_batch_duration_seconds',
      help: 'From a batch handed over by the bus to its rows inserted (decode + buffering + insert)',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [metricRegistry],
    }),
    freshness: new Histogram({
      name: 'segmenter_sink_freshness_seconds',
      help: 'From received_at (gateway) to the row being inserted, by table',
      labelNames: ['table'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
      registers: [metricRegistry],
    }),
    unreadable: new Counter({
      name: 'segmenter_sink_unreadable_messages_total',
      help: 'Messages the sink could not read (not a record of a known schema, or not a valid row), dead-lettered, by topic',
      labelNames: ['topic'] as const,
      registers: [metricRegistry],
    }),
    deadLettersUnstored: new Counter({
      name: 'segmenter_sink_dead_letters_unstored_total',
      help: 'Dead letters whose dead_letters row ClickHouse refused on its own (they stay on the deadletters topic; npm run deadletters lists them)',
      registers: [metricRegistry],
    }),
    deadLettered: new Counter({
      name: 'segmenter_sink_dead_lettered_total',
      help: 'Messages written to `deadletters` because ClickHouse refused their row on its own for a reason no retry cures, by table',
      labelNames: ['table'] as const,
      registers: [metricRegistry],
    }),
  };
}

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
    erasedChanges: new Counter({
      name: 'segmenter_segments_erased_changes_total',
      help: 'Membership changes neither written nor published because an erasure of the user was in flight (docs/privacy.md)',
      registers: [metricRegistry],
    }),
  };
}

export type EngineMetrics = ReturnType<typeof createEngineMetrics>;

/** What an operator watches of the campaign worker: trigger items consumed and produced, users of runs by outcome. */
export function createCampaignWorkerMetrics(metricRegistry: Registry) {
  return {
    itemsTotal: new Counter({
      name: 'segmenter_campaign_trigger_items_total',
      help: 'Campaign trigger items consumed, by kind (users, schedule) and outcome (accepted, rejected: the campaign was not live or is gone)',
      labelNames: ['kind', 'outcome'] as const,
      registers: [metricRegistry],
    }),
    usersTotal: new Counter({
      name: 'segmenter_campaign_users_total',
      help: 'Users of campaign runs by outcome (requested, control, skipped)',
      labelNames: ['outcome'] as const,
      registers: [metricRegistry],
    }),
    suppressedTotal: new Counter({
      name: 'segmenter_campaign_suppressed_total',
      help: 'Deliveries of campaign runs skipped because the user is suppressed (erased): no outcome row, no action',
      registers: [metricRegistry],
    }),
    producedTotal: new Counter({
      name: 'segmenter_campaign_trigger_items_produced_total',
      help: 'Campaign trigger items produced, by source (segment_entry, event, schedule, api)',
      labelNames: ['source'] as const,
      registers: [metricRegistry],
    }),
  };
}
