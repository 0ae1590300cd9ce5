export * from './types';
export { FIELD_VOCABULARY } from './vocabulary';
export { fieldPrivacy, privacyLeaves, type PrivacyLeaf, type PrivacySource, type ResolvedPrivacy } from './resolve';
export { personIdFields, personIdReader, type PersonId, type PersonIdField } from './person-ids';
export { ENVELOPE_PRIVACY } from './envelope';
