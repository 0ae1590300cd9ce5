import { Counter, Histogram, type Registry } from 'prom-client';

/**
 * What an operator watches: rows/s (rate of rows_inserted), insert latency, time a handler call waits
 * for its rows to be inserted and freshness (received_at → inserted). How far behind the log the sink
 * is, is its group's `consumer_lag_*` (the bus reports every group's: @evp/http busMetrics).
 */
export function createSinkMetrics(metricRegistry: Registry) {
  return {
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
