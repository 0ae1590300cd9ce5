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

export const membershipChangeSchema = {
  type: 'record',
  name: 'MembershipChange',
  namespace: 'evp.segments',
  doc: 'One change of the membership of a user in a segment',
  fields: [
    { name: 'app_id', type: 'string' },
    { name: 'segment_id', type: 'string' },
    { name: 'user_id', type: 'string' },
    { name: 'change', type: { type: 'enum', name: 'MembershipChangeKind', symbols: [...MEMBERSHIP_CHANGE_KINDS] } },
    { name: 'at', type: { type: 'long', logicalType: 'timestamp-millis' }, doc: 'the instant of the evaluation that saw the change' },
    { name: 'version', type: 'int', doc: 'the definition version evaluated' },
    { name: 'seq', type: 'long', doc: 'the n-th change of this (segment, user), from 1' },
  ],
} as const;
