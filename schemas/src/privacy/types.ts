import type { PrivacyClass } from '@evp/core';

/**
 * Privacy classes of the data contract (docs/privacy.md, "Data classes"), defined in @evp/core (the
 * keys file's per-app policy names them too). Every field of every event, nested object and catalog
 * definition resolves to one (resolve.ts); per-app policy (keep, pseudonymise, drop) is set per
 * class, and erasure finds a person through the fields that carry a person kind.
 */
export { PRIVACY_CLASSES, type PrivacyClass } from '@evp/core';

/** The kinds of person a field can identify: the ids an erasure or an export request names. */
export const PERSON_KINDS = ['user', 'patient', 'health_worker', 'chat_user'] as const;
export type PersonKind = (typeof PERSON_KINDS)[number];

/** A field's class, and for an identifier the kind of person whose id it holds (in the platform's id space). */
export interface FieldPrivacy {
  class: PrivacyClass;
  person?: PersonKind;
}
