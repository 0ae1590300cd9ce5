import type { ActionLogEntry } from '../generated/records';
import { avroFieldsOf, type RecordField } from './record-fields';
import { recordReader } from './record-reader';

export type { ActionLogEntry } from '../generated/records';

/**
 * The action log (topic `actions.log`, table `actions_log`): what happened to every action of the
 * action store, one entry per step. Written atomically with the step into the store's outbox
 * (docs/actions.md, "The action log"), relayed to Kafka at least once; `entry_id` is derived from
 * the entry's content, so a re-sent entry collapses with its first copy downstream.
 */
export const ACTION_LOG_KINDS = ['created', 'delivered', 'withdrawn', 'expired', 'capped'] as const;
export type ActionLogKind = (typeof ACTION_LOG_KINDS)[number];

/**
 * The action log entry (ActionLogEntry, schemas/generated/records.ts), field by field, in order: its
 * type, its Avro schema (byte for byte the one first registered; test) and its reader
 * (readActionLogEntry, what the sink decodes with) are derived from it.
 */
export const ACTION_LOG_FIELDS = [
  {
    name: 'entry_id',
    kind: 'string',
    nonEmpty: true,
    doc: 'Hash of app, action (inv_id, action_id, user_id, created_at) and kind: the same step always has the same id.',
  },
  { name: 'kind', kind: 'enum', symbols: ACTION_LOG_KINDS, avroDoc: ACTION_LOG_KINDS.join(', ') },
  { name: 'app_id', kind: 'string', nonEmpty: true },
  { name: 'user_id', kind: 'string' },
  { name: 'inv_id', kind: 'int', avroType: 'long' },
  { name: 'action_id', kind: 'int', avroType: 'long' },
  {
    name: 'at',
    kind: 'epochMs',
    doc: 'Epoch ms of the step, on the store’s clock: creation, the pull that delivered it, the block that withdrew it; for `expired`, the action’s `expired_at` (the instant it stopped being deliverable, not the later sweep).',
    avroDoc: 'epoch ms; for expired: the expiry instant',
  },
  {
    name: 'created_at',
    kind: 'epochMs',
    doc: 'Epoch ms the action was created: with (inv_id, action_id, user_id) it names one action even after a re-create past retention. For `capped`, the refusal (equal to `at`): the action never existed.',
    avroDoc: 'epoch ms',
  },
  { name: 'type', kind: 'string' },
  { name: 'render_method', kind: 'string' },
  { name: 'delivery_mode', kind: 'string' },
  {
    name: 'expired_at',
    kind: 'epochMs',
    nullable: true,
    doc: 'Epoch ms (whole) at which the action expires; null = never.',
    avroDoc: 'epoch ms; null = never',
    avroDocAfterDefault: true,
  },
  { name: 'tags', kind: 'stringList', doc: '`created` and `capped` ([] on the other kinds: join on the created entry).', avroDoc: 'created and capped' },
  { name: 'attr', kind: 'stringMap', doc: '`created` and `capped` ({} on the other kinds).', avroDoc: 'created and capped' },
  {
    name: 'source',
    kind: 'string',
    doc: '`created` and `capped`: who asked for the action (`api`, `actions.requested`, or the message’s own `source`); empty on the other kinds.',
    avroDoc: "created and capped: api, actions.requested or the message's source",
  },
  // Added with campaigns; defaults let records written before them decode.
  {
    name: 'reason',
    kind: 'string',
    doc: '`capped` only: which frequency cap refused the action, `campaign_cap` or `app_cap`; empty on the other kinds.',
    avroDefault: '',
    avroDoc: 'capped only: campaign_cap or app_cap',
    avroDocAfterDefault: true,
  },
  {
    name: 'available_at',
    kind: 'epochMs',
    nullable: true,
    doc: '`created` and `capped`: epoch ms before which no pull returns the action; null = at creation (and on the other kinds).',
    avroDoc: 'created and capped: epoch ms before which no pull returns it; null = at creation',
    avroDocAfterDefault: true,
  },
] as const satisfies readonly RecordField[];

export const actionLogEntrySchema = {
  type: 'record',
  name: 'ActionLogEntry',
  namespace: 'evp.actions',
  doc: 'One step of an action of the action store: created, delivered (first pull), withdrawn (block), expired undelivered, or capped (refused by a frequency cap)',
  fields: avroFieldsOf(ACTION_LOG_FIELDS),
} as const;

/** A decoded `actions.log` record → its entry; throws RecordReadError naming the field that is not one. */
export const readActionLogEntry: (value: unknown) => ActionLogEntry = recordReader<ActionLogEntry>(ACTION_LOG_FIELDS);
