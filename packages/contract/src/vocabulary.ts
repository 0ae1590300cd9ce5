/**
 * The blocks events belong to and the built-in catalog kinds: the names topics, schemas and
 * routes are made of (topics live in packages/core/src/topics.ts, built from these).
 */
export const BLOCKS = ['core', 'patient_mgmt', 'e_commerce', 'e_learning', 'loyalty', 'emergency_mgmt', 'call_center', 'chat', 'payment'] as const;
export type Block = (typeof BLOCKS)[number];

export const CATALOG_KINDS = [
  'user',
  'site',
  'hcw',
  'patient',
  'chat_user',
  'chat_group',
  'chat_bot',
  'drug',
  'grocery',
  'blood',
  'oxygen',
  'medical_equipment',
  'facility',
  // Not in the spec; uploaded by real clients (schemas/src/catalogs/definitions.ts).
  'media',
  'survey',
  'reward',
] as const;
export type CatalogKind = (typeof CATALOG_KINDS)[number];

/**
 * What a raw message holds (its `payload_kind` header): envelopes of logs, an SDK crash upload, a
 * dimensions upload (records of several kinds), or one kind's catalog submission (`catalog:<kind>`,
 * the kind as sent: aliases and app-defined kinds are resolved by the validator).
 */
export const LOG_PAYLOAD_KIND = 'log';
export const CRASH_PAYLOAD_KIND = 'crash';
export const DIMENSIONS_PAYLOAD_KIND = 'dimensions';
const CATALOG_PAYLOAD_PREFIX = 'catalog:';

export const catalogPayloadKind = (kindAsSent: string): string => `${CATALOG_PAYLOAD_PREFIX}${kindAsSent}`;

/** `catalog:<kind>` → the kind as sent, or undefined when the payload kind is not a catalog one. */
export function catalogKindOfPayload(payloadKind: string): string | undefined {
  return payloadKind.startsWith(CATALOG_PAYLOAD_PREFIX) ? payloadKind.slice(CATALOG_PAYLOAD_PREFIX.length) : undefined;
}
