import { envFragments, envOption, fixedOption, topics, type ConfigOf } from '@evp/core';

/** The engine's name: its work group's default, its log lines' component, its dead letters' processor. */
export const SEGMENT_ENGINE_NAME = 'segmenter-segments';

/** Every setting of the segment engine, with its default and meaning (docs/configuration.md is generated from it). */
export const SEGMENT_ENGINE_OPTIONS = {
  groupId: fixedOption(SEGMENT_ENGINE_NAME as string, 'Consumer group of `segments.work`: its partition owners are the evaluating replicas.'),
  workTopic: fixedOption(topics.segmentsWork as string, 'Where work items are written and read.'),
  membershipTopic: fixedOption(topics.segmentsMembership as string, 'Where every change of membership is written once.'),
  recomputeIntervalMs: envOption(
    'SEGMENTS_RECOMPUTE_INTERVAL_MS',
    envFragments.nonNegativeInt,
    60_000,
    'How often every time-driven segment gets a full recompute, on the multiples of it of the clock (every replica asks on the same instants); 0: no timer on this replica.',
  ),
  refreshIntervalMs: envOption(
    'SEGMENTS_REFRESH_INTERVAL_MS',
    envFragments.positiveInt,
    5_000,
    'How often the list of segments the sink’s rows are matched against is reloaded (in code, 0: no timer, refresh() only).',
  ),
  usersPerItem: envOption('SEGMENTS_USERS_PER_ITEM', envFragments.positiveInt, 1_000, 'Most users in one `users` work item.'),
  recoveryMarginMs: envOption(
    'SEGMENTS_RECOVERY_MARGIN_MS',
    envFragments.nonNegativeInt,
    60_000,
    'Recovery reads `segments.membership` back from this long before a pending row was written (clock skew between replicas).',
  ),
  expiryIntervalMs: envOption(
    'SEGMENTS_EXPIRY_INTERVAL_MS',
    envFragments.nonNegativeInt,
    3_600_000,
    'How often ended memberships past their app’s `history` retention are deleted (docs/privacy.md), on the multiples of it of the clock, by the replica of those consuming `segments.work` that holds the `segments.expiry` lease (held twice this long, renewed each round); 0: not on this replica.',
  ),
  concurrency: envOption('SEGMENTS_WORK_CONCURRENCY', envFragments.positiveInt, 1, 'Work partitions one replica handles at once.'),
};

/** What the segment engine runs with: each field's meaning and default in SEGMENT_ENGINE_OPTIONS. */
export type SegmentEngineConfig = ConfigOf<typeof SEGMENT_ENGINE_OPTIONS>;
