import { topics } from '@evp/core';
import type { CanonicalCatalogRecord, CustomCatalogRecord } from '../normalize/catalog';
import type { AvroSchema } from './derive';

/**
 * Records of app-defined catalog kinds (catalogs/custom.ts) travel on one topic, `catalog.custom`
 * (subject `catalog.custom-value`), with one schema: the common fields every catalog row has, the
 * kind as a field (there is one topic for every such kind), and the fields as JSON text, since
 * nothing defines their types. The segmenter writes them to `catalog_custom`.
 */
export const customCatalogSchema = {
  type: 'record',
  name: 'CustomCatalogRecord',
  namespace: 'evp.catalog.custom',
  doc: 'Catalog records of app-defined kinds (not built-in; named by the app, e.g. Unity LogOtherCatalog): id and the fields as sent',
  fields: [
    { name: 'app_id', type: 'string', doc: "the SDK key's app" },
    { name: 'id', type: 'string' },
    { name: 'kind', type: 'string', doc: 'the app-defined kind, as sent: [a-z][a-z0-9_]{0,63}' },
    { name: 'received_at', type: 'long', doc: 'UTC epoch ms, set by the gateway' },
    { name: 'request_id', type: 'string' },
    { name: 'record_json', type: 'string', doc: 'Every field but id, as sent, as a JSON object' },
  ],
} satisfies AvroSchema;

export const isCustomCatalogRecord = (r: CanonicalCatalogRecord | CustomCatalogRecord): r is CustomCatalogRecord => 'custom' in r && r.custom;

/** The topic a catalog record goes to: its kind's, or the one topic of every app-defined kind. */
export const catalogRecordTopic = (r: CanonicalCatalogRecord | CustomCatalogRecord): string =>
  isCustomCatalogRecord(r) ? topics.customCatalog : topics.catalog(r.kind);

export function customCatalogToAvro(r: CustomCatalogRecord): Record<string, unknown> {
  return { app_id: r.app_id, id: r.id, kind: r.kind, received_at: r.received_at, request_id: r.request_id, record_json: JSON.stringify(r.record) };
}

/** Decoded `catalog.custom` Avro record → CustomCatalogRecord (inverse of customCatalogToAvro). */
export function customCatalogFromAvro(value: Record<string, unknown>): CustomCatalogRecord {
  const record: unknown = JSON.parse(String(value.record_json));
  if (record === null || typeof record !== 'object' || Array.isArray(record)) throw new Error('record_json is not a JSON object');
  return {
    custom: true,
    app_id: value.app_id as string,
    id: value.id as string,
    kind: value.kind as string,
    received_at: value.received_at as number,
    request_id: value.request_id as string,
    record: record as Record<string, unknown>,
  };
}
