import type { BusMessage, OutgoingMessage } from '@evp/core';
import { taggedMessageReader, type RecordField, type RecordOf } from '@evp/schemas';
import { TRIGGER_KINDS } from './document';

/**
 * A trigger item on `campaigns.triggers` (JSON, key `app_id:campaign_id`, so one campaign's items
 * keep their order on one partition and its rate limit is one replica's), one field table per kind:
 * the TriggerItem type and its reader (readTriggerItem) are derived from them.
 * - `users`: one run of the campaign for these users. `at` (epoch ms) is when the trigger happened:
 *   the outcome rows' `at`, the start of local-time rules and of `expires_after`. A user of an event
 *   trigger names the event (`event_id`); the worker reads its properties back from ClickHouse with
 *   the trigger's `where`, so an event that does not match is no trigger.
 * - `schedule`: the occurrence of a schedule trigger at `run_at` (epoch ms): the worker expands it to
 *   the segment's current members (run key `schedule:<run_at>`).
 */
const TRIGGER_ITEM_FIELDS = {
  users: [
    { name: 'kind', kind: 'enum', symbols: ['users'] },
    { name: 'app_id', kind: 'string', nonEmpty: true },
    { name: 'campaign_id', kind: 'string', nonEmpty: true },
    { name: 'run_key', kind: 'string', nonEmpty: true },
    { name: 'trigger', kind: 'enum', symbols: TRIGGER_KINDS },
    { name: 'at', kind: 'epochMs' },
    {
      name: 'users',
      kind: 'recordList',
      fields: [
        { name: 'user_id', kind: 'string', nonEmpty: true },
        // Event triggers: the inserted event the worker selects with the trigger's `where`.
        { name: 'event_id', kind: 'string', nonEmpty: true, optional: true },
      ],
    },
  ],
  schedule: [
    { name: 'kind', kind: 'enum', symbols: ['schedule'] },
    { name: 'app_id', kind: 'string', nonEmpty: true },
    { name: 'campaign_id', kind: 'string', nonEmpty: true },
    { name: 'run_at', kind: 'epochMs' },
  ],
} as const satisfies Record<string, readonly RecordField[]>;

export type TriggerItem = { [K in keyof typeof TRIGGER_ITEM_FIELDS]: RecordOf<(typeof TRIGGER_ITEM_FIELDS)[K]> }[keyof typeof TRIGGER_ITEM_FIELDS];

const triggerKey = (item: TriggerItem) => `${item.app_id}:${item.campaign_id}`;

export const triggerMessage = (item: TriggerItem): OutgoingMessage => ({ key: triggerKey(item), value: Buffer.from(JSON.stringify(item)) });

/** A trigger item from its message; a message that is none is a bug of its producer (UnreadableMessageError: dead-lettered, never retried). */
export const readTriggerItem: (m: BusMessage) => TriggerItem = taggedMessageReader('kind', TRIGGER_ITEM_FIELDS, 'a campaign trigger item');
