import type { MembershipChange } from '../generated/records';
import { avroFieldsOf, type RecordField } from './record-fields';
import { recordReader } from './record-reader';

export type { MembershipChange } from '../generated/records';

/**
 * One change of segment membership as published on `segments.membership` (Confluent wire format,
 * subject `segments.membership-value`), key `app_id:user_id`. The segment engine
 * (services/segmenter/src/segments) writes each change once; docs/segments.md argues why.
 */
export const MEMBERSHIP_CHANGE_KINDS = ['entered', 'exited'] as const;

/**
 * Headers of every membership record. `change_id` is the change's identity, `segment:user:seq`
 * (a segment id never holds `:`; seq is per segment and user): consumers deduplicate by it, and the
 * engine's crash recovery looks for it when it reads the topic back.
 */
export const membershipHeaders = { changeId: 'change_id', appId: 'app_id', segmentId: 'segment_id' } as const;

export const membershipChangeId = (c: { segment_id: string; user_id: string; seq: number }) => `${c.segment_id}:${c.user_id}:${c.seq}`;

/**
 * One change of membership (MembershipChange, schemas/generated/records.ts), field by field, in
 * order: its type, its Avro schema (byte for byte the one first registered) and its reader
 * (readMembershipChange, what consumers decode with) are derived from it.
 */
export const MEMBERSHIP_FIELDS = [
  { name: 'app_id', kind: 'string', nonEmpty: true },
  { name: 'segment_id', kind: 'string', nonEmpty: true },
  { name: 'user_id', kind: 'string' },
  {
    name: 'change',
    kind: 'enum',
    symbols: MEMBERSHIP_CHANGE_KINDS,
    avroType: { type: 'enum', name: 'MembershipChangeKind', symbols: [...MEMBERSHIP_CHANGE_KINDS] },
  },
  {
    name: 'at',
    kind: 'epochMs',
    doc: 'Epoch ms of the evaluation that saw the change.',
    avroType: { type: 'long', logicalType: 'timestamp-millis' },
    avroDoc: 'the instant of the evaluation that saw the change',
  },
  { name: 'version', kind: 'int', doc: 'The definition version that was evaluated.', avroDoc: 'the definition version evaluated' },
  {
    name: 'seq',
    kind: 'int',
    doc: 'The n-th change of this (segment, user), from 1, or from above the segment’s seq floor once ended memberships were expired (docs/segments.md): increasing per (segment, user); with segment_id and user_id, the change’s identity.',
    avroType: 'long',
    // Kept as first registered (a new doc would be a new schema version); docs/segments.md says the rest.
    avroDoc: 'the n-th change of this (segment, user), from 1',
  },
] as const satisfies readonly RecordField[];

export const membershipChangeSchema = {
  type: 'record',
  name: 'MembershipChange',
  namespace: 'evp.segments',
  doc: 'One change of the membership of a user in a segment',
  fields: avroFieldsOf(MEMBERSHIP_FIELDS),
} as const;

/** A decoded `segments.membership` record → its change; throws RecordReadError naming the field that is not one. */
export const readMembershipChange: (value: unknown) => MembershipChange = recordReader<MembershipChange>(MEMBERSHIP_FIELDS);
