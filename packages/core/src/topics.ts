/** Every Kafka topic name lives here; a version suffix would be added in this one place. */
export const BLOCKS = [
  'core',
  'patient_mgmt',
  'e_commerce',
  'e_learning',
  'loyalty',
  'emergency_mgmt',
  'call_center',
  'chat',
  'payment',
] as const;
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
] as const;
export type CatalogKind = (typeof CATALOG_KINDS)[number];

export const topics = {
  raw: 'ingest.raw',
  rejected: 'ingest.rejected',
  actionsRequested: 'actions.requested',
  /**
   * Messages a consumer could not handle for a reason retrying cannot cure, each with its provenance
   * (source topic, partition, offset, group, error) in headers, so the partition moves on and
   * nothing is dropped silently.
   */
  deadLetters: 'deadletters',
  events: (block: Block) => `events.${block}`,
  catalog: (kind: CatalogKind) => `catalog.${kind}`,
} as const;

/** Every topic the platform uses, with its partition count (mirrored by deploy/local/topics.txt). */
export function allTopics(): { name: string; partitions: number }[] {
  return [
    { name: topics.raw, partitions: 3 },
    { name: topics.rejected, partitions: 3 },
    ...BLOCKS.map((b) => ({ name: topics.events(b), partitions: 3 })),
    ...CATALOG_KINDS.map((k) => ({ name: topics.catalog(k), partitions: 1 })),
    { name: topics.actionsRequested, partitions: 3 },
    { name: topics.deadLetters, partitions: 3 },
  ];
}

/** Headers the gateway puts on every raw message. */
export const rawHeaders = {
  appId: 'app_id',
  requestId: 'request_id',
  receivedAt: 'received_at',
  keyId: 'key_id',
  /** `log` for event envelopes, `catalog:<kind>` for catalog submissions. */
  payloadKind: 'payload_kind',
} as const;
