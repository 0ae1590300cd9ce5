import { ERASABLE_KINDS } from '@evp/core';
import type { SuppressionEntry } from '../generated/records';
import type { RecordField } from './record-fields';
import { recordReader } from './record-reader';

export type { SuppressionEntry } from '../generated/records';

/**
 * The value of a `privacy.suppressions` message (JSON, key `<app_id>:<id_hash>`; a tombstone lifts
 * it): who is suppressed, by the keyed hash of the id only (idHash, @evp/core), and which erasure
 * suppressed them. Every part reads only the key; the value says why, for people and the lift.
 */
export const SUPPRESSION_FIELDS = [
  { name: 'app_id', kind: 'string', nonEmpty: true },
  {
    name: 'id_hash',
    kind: 'string',
    nonEmpty: true,
    doc: 'HMAC-SHA256 of app, kind and id under PRIVACY_HASH_KEY (hex): names no one without the key.',
  },
  { name: 'kind', kind: 'enum', symbols: ERASABLE_KINDS, doc: 'The kind of id: `user` or `patient`.' },
  { name: 'request_id', kind: 'string', nonEmpty: true, doc: 'The erasure request that suppressed the person.' },
  { name: 'at', kind: 'string', nonEmpty: true, doc: 'When the suppression was made (ISO 8601).' },
] as const satisfies readonly RecordField[];

/** A decoded `privacy.suppressions` value → its entry; throws RecordReadError naming the field that is not one. */
export const readSuppression: (value: unknown) => SuppressionEntry = recordReader<SuppressionEntry>(SUPPRESSION_FIELDS);
