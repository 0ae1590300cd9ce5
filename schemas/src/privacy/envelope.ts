import type { CANONICAL_FIELDS } from '../canonical-fields';
import type { FieldPrivacy } from './types';

type CanonicalName = (typeof CANONICAL_FIELDS)[number]['name'];

/**
 * The class of each field of the canonical event's envelope (every event has them). The type makes a
 * new canonical field fail to compile until it is classified here.
 */
export const ENVELOPE_PRIVACY: Readonly<Record<CanonicalName, FieldPrivacy>> = {
  event_id: { class: 'none' },
  app_id: { class: 'none' },
  user_id: { class: 'direct_identifier', person: 'user' },
  session_id: { class: 'quasi_identifier' },
  session_start: { class: 'none' },
  session_end: { class: 'none' },
  // A device, not a person: erasure finds a person's rows by user_id, which every row has.
  device_id: { class: 'direct_identifier' },
  os: { class: 'quasi_identifier' },
  sdk_name: { class: 'none' },
  sdk_version: { class: 'none' },
  app_version: { class: 'none' },
  app_version_code: { class: 'none' },
  tz: { class: 'quasi_identifier' },
  block: { class: 'none' },
  name: { class: 'none' },
  sent_name: { class: 'none' },
  property: { class: 'none' },
  time: { class: 'none' },
  online: { class: 'none' },
  received_at: { class: 'none' },
  sent_at: { class: 'none' },
  corrected_time: { class: 'none' },
  request_id: { class: 'none' },
  // A key version says nothing about a person.
  pseudonym_key: { class: 'none' },
  envelope: { class: 'none' },
  // Each property has its own class (the event's definition).
  props: { class: 'none' },
  meta: { class: 'free_text' },
  // Earlier/flat form client info: device details and the IP address the client declared.
  client: { class: 'quasi_identifier' },
  warnings: { class: 'none' },
};
