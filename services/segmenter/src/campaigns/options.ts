import { envFragments, envOption, fixedOption, topics, type ConfigOf } from '@evp/core';

/** The worker's name: its trigger group's default, its log lines' component, its dead letters' processor. */
export const CAMPAIGN_WORKER_NAME = 'segmenter-campaigns';

/** Every setting of the campaign worker, with its default and meaning (docs/configuration.md is generated from it). */
export const CAMPAIGN_WORKER_OPTIONS = {
  groupId: fixedOption(CAMPAIGN_WORKER_NAME as string, 'Consumer group of `campaigns.triggers`: a partition’s owner acts on its campaigns’ triggers.'),
  entryGroupId: fixedOption('segmenter-campaign-entries', 'Consumer group of `segments.membership` turning segment entries into triggers.'),
  entryFromBeginning: envOption(
    'CAMPAIGNS_ENTRIES_FROM_BEGINNING',
    envFragments.bool,
    false,
    'Where the entry group starts when it has no committed offsets: false, the topic’s end (a first deployment does not replay past entries into nudges); true, its start.',
  ),
  triggersTopic: fixedOption(topics.campaignsTriggers as string, 'Where trigger items are written and read.'),
  membershipTopic: fixedOption(topics.segmentsMembership as string, 'The segment engine’s membership changes the entry group reads.'),
  actionsTopic: fixedOption(topics.actionsRequested as string, 'Where the requested actions go.'),
  refreshIntervalMs: envOption(
    'CAMPAIGNS_REFRESH_INTERVAL_MS',
    envFragments.positiveInt,
    5_000,
    'How often the active campaigns (the entry consumer’s, the sink hook’s and the schedule timer’s list) are reloaded (in code, 0: refresh() only).',
  ),
  scheduleIntervalMs: envOption(
    'CAMPAIGNS_SCHEDULE_INTERVAL_MS',
    envFragments.nonNegativeInt,
    60_000,
    'How often the schedule timer looks for due occurrences, on the multiples of it of the clock; 0: no timer on this replica.',
  ),
  scheduleCatchUpMs: envOption(
    'CAMPAIGNS_SCHEDULE_CATCH_UP_MS',
    envFragments.nonNegativeInt,
    3_600_000,
    'An occurrence older than this when first seen due is not run (an outage longer than it skips it).',
  ),
  adaptIntervalMs: envOption(
    'CAMPAIGNS_ADAPT_INTERVAL_MS',
    envFragments.nonNegativeInt,
    600_000,
    'How often the allocation timer looks for adaptive campaigns whose 12 h epoch is over (the weights move at most once per epoch whatever this is), on the replica holding the `campaigns.adapt` lease (held twice this long, renewed each turn; docs/campaigns.md); 0: no timer on this replica.',
  ),
  usersPerItem: fixedOption(1_000, 'Most users in one `users` item the producers write.'),
  usersPerBatch: envOption(
    'CAMPAIGNS_USERS_PER_BATCH',
    envFragments.positiveInt,
    1_000,
    'Users per batch of the worker (rendering, one outcome insert, its actions’ messages) and per members page.',
  ),
  concurrency: envOption('CAMPAIGNS_WORK_CONCURRENCY', envFragments.positiveInt, 1, 'Trigger partitions one replica handles at once.'),
};

/** What the campaign worker runs with: each field's meaning and default in CAMPAIGN_WORKER_OPTIONS. */
export type CampaignWorkerConfig = ConfigOf<typeof CAMPAIGN_WORKER_OPTIONS>;
