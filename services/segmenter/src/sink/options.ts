import { envFragments, envOption, fixedOption, type ConfigOf } from '@evp/core';

/** The sink's name: its consumer group's default, its log lines' component, its dead letters' processor. */
export const SINK_NAME = 'segmenter-sink';

/** Every setting of the sink, with its default and meaning (docs/configuration.md is generated from it). */
export const SINK_OPTIONS = {
  groupId: fixedOption(SINK_NAME as string, 'Consumer group of every topic the sink reads.'),
  batchMaxRows: envOption('SINK_BATCH_MAX_ROWS', envFragments.positiveInt, 10_000, 'Rows per insert at most.'),
  batchMaxWaitMs: envOption('SINK_BATCH_MAX_WAIT_MS', envFragments.positiveInt, 1_000, 'Longest a row waits for others to share its insert.'),
  batchMinIntervalMs: envOption(
    'SINK_BATCH_MIN_INTERVAL_MS',
    envFragments.nonNegativeInt,
    200,
    'Rows leave as soon as no insert runs (gathering while one does), but inserts start at most once per this long: each costs ClickHouse a fixed share of CPU and a part to merge.',
  ),
  busConcurrency: envOption(
    'SINK_BUS_CONCURRENCY',
    envFragments.positiveInt,
    16,
    'Handler calls the bus runs at once (kafkajs partitionsConsumedConcurrently): the partitions of one fetch share an insert.',
  ),
  sliceRows: envOption(
    'SINK_SLICE_ROWS',
    envFragments.positiveInt,
    // 10,000 since the rows are RowBinary (issue 28): decoding is cheaper than each insert's fixed
    // engine cost (a 5,000-row insert costs ≈ 5 µs more CPU per row than a 10,000-row one), so a
    // slice is as large as an insert (bench/sink/README.md, "Issue 28: RowBinary rows").
    10_000,
    'A handler call hands its rows over in slices of this many messages, so inserting one slice (ClickHouse’s threads) overlaps decoding the next (the JS thread).',
  ),
  retryInitialDelayMs: envOption(
    'SINK_RETRY_INITIAL_DELAY_MS',
    envFragments.positiveInt,
    200,
    'First back-off between insert attempts while ClickHouse is unavailable.',
  ),
  retryMaxDelayMs: envOption('SINK_RETRY_MAX_DELAY_MS', envFragments.positiveInt, 5_000, 'Longest back-off between insert attempts.'),
  retryBudgetMs: envOption(
    'SINK_RETRY_BUDGET_MS',
    envFragments.positiveInt,
    10_000,
    'How long one handler call keeps retrying before handing the batch back to the bus.',
  ),
};

/** What the sink runs with: each field's meaning and default in SINK_OPTIONS. */
export type SinkConfig = ConfigOf<typeof SINK_OPTIONS>;
