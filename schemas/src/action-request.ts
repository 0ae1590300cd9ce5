import type { RecordField } from './record-fields';

export type { ActionRequestMessage, NewActionFields, ActionContent, ActionCaps, RequestedAction } from '../generated/records';

/**
 * An action as the action store takes it (spec 2.5, 4.1) and the `actions.requested` message that
 * carries actions to it (JSON, key `<app_id>`, header `app_id`), field by field. The message's type
 * (ActionRequestMessage, schemas/generated/records.ts), its reference page
 * (docs/reference/internal-records.md) and the reader of both the message and POST /v1/actions'
 * body (packages/actions/src/validation.ts derives its zod schemas from these tables, limits
 * included) all come from here.
 */
export const ACTION_TYPES = ['message', 'custom'] as const;
export const RENDER_METHODS = ['push_notification', 'in_app_message', 'generic_message'] as const;
export const DELIVERY_MODES = ['one-off', 'cached'] as const;

/** Most actions one create request or one `actions.requested` message may carry. */
export const MAX_ACTIONS_PER_CREATE = 1000;
/** Ids a caller gives are 32-bit; ids the store generates start above them so the two never collide. */
export const MAX_GIVEN_ID = 2_147_483_647;

export const ACTION_LIMITS = {
  userIdLength: 256,
  titleLength: 1_000,
  bodyLength: 10_000,
  attrPairs: 50,
  attrKeyLength: 128,
  attrValueLength: 1_024,
  tags: 50,
  tagLength: 128,
  capKeyLength: 128,
  /** A campaign cap's window: at most a year. */
  capWindowMs: 366 * 24 * 60 * 60 * 1000,
  capMax: 1_000_000,
  sourceLength: 128,
} as const;

const givenId = (name: 'inv_id' | 'action_id', doc: string) =>
  ({ name, kind: 'int', optional: true, limits: { min: 0, max: MAX_GIVEN_ID }, doc }) as const satisfies RecordField;

/** The fields every action has, as POST /v1/actions takes it (both ids optional there). */
export const NEW_ACTION_FIELDS = [
  {
    name: 'user_id',
    kind: 'string',
    nonEmpty: true,
    limits: { maxLength: ACTION_LIMITS.userIdLength },
    doc: 'One user; `*` is refused (it selects users when pulling).',
  },
  { name: 'type', kind: 'enum', symbols: ACTION_TYPES },
  { name: 'render_method', kind: 'enum', symbols: RENDER_METHODS, doc: 'A `custom` action is never a push notification (docs/actions.md).' },
  { name: 'delivery_mode', kind: 'enum', symbols: DELIVERY_MODES },
  {
    name: 'content',
    kind: 'record',
    avroRecord: 'ActionContent',
    fields: [
      { name: 'title', kind: 'string', limits: { maxLength: ACTION_LIMITS.titleLength } },
      { name: 'body', kind: 'string', limits: { maxLength: ACTION_LIMITS.bodyLength } },
    ],
  },
  {
    name: 'attr',
    kind: 'stringMap',
    avroDefault: {},
    limits: { maxItems: ACTION_LIMITS.attrPairs, nonEmptyItems: true, keyMaxLength: ACTION_LIMITS.attrKeyLength, maxLength: ACTION_LIMITS.attrValueLength },
  },
  {
    name: 'tags',
    kind: 'stringList',
    avroDefault: [],
    limits: { maxItems: ACTION_LIMITS.tags, nonEmptyItems: true, maxLength: ACTION_LIMITS.tagLength },
  },
  { name: 'expired_at', kind: 'string', limits: { format: 'timestamp' }, doc: '`0001-01-01T00:00:00Z` = never.' },
  { name: 'available_at', kind: 'string', optional: true, limits: { format: 'timestamp' }, doc: 'No pull returns the action before this instant.' },
  givenId('inv_id', 'Given with action_id, creation is idempotent.'),
  givenId('action_id', 'Given with inv_id, creation is idempotent.'),
] as const satisfies readonly RecordField[];

const capMax = { min: 1, max: ACTION_LIMITS.capMax } as const;

/** An action on `actions.requested`: both ids required (a redelivered message creates nothing twice), and only it may carry caps. */
export const REQUESTED_ACTION_FIELDS = [
  ...NEW_ACTION_FIELDS.filter((f) => f.name !== 'inv_id' && f.name !== 'action_id'),
  { name: 'inv_id', kind: 'int', limits: { min: 0, max: MAX_GIVEN_ID } },
  { name: 'action_id', kind: 'int', limits: { min: 0, max: MAX_GIVEN_ID } },
  {
    name: 'caps',
    kind: 'record',
    optional: true,
    avroRecord: 'ActionCaps',
    doc: 'Frequency caps checked atomically with the creation (docs/actions.md "Frequency caps").',
    fields: [
      {
        name: 'campaign',
        kind: 'record',
        optional: true,
        avroRecord: 'CampaignCap',
        fields: [
          { name: 'key', kind: 'string', nonEmpty: true, limits: { maxLength: ACTION_LIMITS.capKeyLength } },
          { name: 'max', kind: 'int', limits: capMax },
          { name: 'within_ms', kind: 'int', limits: { min: 1, max: ACTION_LIMITS.capWindowMs } },
        ],
      },
      { name: 'app', kind: 'record', optional: true, avroRecord: 'AppCap', fields: [{ name: 'max', kind: 'int', limits: capMax }] },
    ],
  },
] as const satisfies readonly RecordField[];

/** The value of an `actions.requested` message. */
export const ACTION_REQUEST_FIELDS = [
  { name: 'app_id', kind: 'string', nonEmpty: true, limits: { pattern: '^[A-Za-z0-9._-]+$' } },
  {
    name: 'source',
    kind: 'string',
    optional: true,
    nonEmpty: true,
    limits: { maxLength: ACTION_LIMITS.sourceLength },
    doc: 'Kept in the action log’s created entries (e.g. `campaign:42`); absent = `actions.requested`.',
  },
  {
    name: 'actions',
    kind: 'recordList',
    avroRecord: 'RequestedAction',
    limits: { minItems: 1, maxItems: MAX_ACTIONS_PER_CREATE },
    fields: REQUESTED_ACTION_FIELDS,
  },
] as const satisfies readonly RecordField[];
