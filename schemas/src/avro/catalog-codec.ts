import { catalogDef, resolveCatalogKind } from '../catalogs/definitions';
import type { FieldType } from '../dsl/types';
import type { CanonicalCatalogRecord, CustomCatalogRecord } from '../normalize/catalog';
import { catalogAvroFieldName, isJsonCatalogField } from './catalog-schema';
import { customCatalogToAvro, isCustomCatalogRecord } from './custom-catalog';

/**
 * A catalog record → the record of its topic's schema (catalogRecordTopic): its kind's
 * (catalogSchema), or for an app-defined kind the one custom schema (customCatalogSchema).
 */
export function catalogToAvro(r: CanonicalCatalogRecord | CustomCatalogRecord): Record<string, unknown> {
  if (isCustomCatalogRecord(r)) return customCatalogToAvro(r);
  const def = catalogDef(r.kind);
  const out: Record<string, unknown> = {
    app_id: r.app_id,
    id: r.id,
    kind: r.kind,
    received_at: r.received_at,
    request_id: r.request_id,
  };
  for (const [name, field] of Object.entries(def.fields)) {
    if (name === 'id') continue;
    const v = r.record[name];
    const avroName = catalogAvroFieldName(name, field);
    if (v === undefined || v === null) out[avroName] = null;
    else out[avroName] = isJsonCatalogField(field) ? JSON.stringify(v) : toAvro(field.type, v);
  }
  out.extra_json = r.extra && Object.keys(r.extra).length > 0 ? JSON.stringify(r.extra) : null;
  return out;
}

function toAvro(type: FieldType, v: unknown): unknown {
  switch (type.kind) {
    case 'any':
      return JSON.stringify(v);
    case 'array':
      return (v as unknown[]).map((x) => toAvro(type.items, x));
    default:
      return v;
  }
}

/** Decoded catalog Avro record → CanonicalCatalogRecord (inverse of catalogToAvro). */
export function catalogFromAvro(value: Record<string, unknown>): CanonicalCatalogRecord {
  const kind = resolveCatalogKind(String(value.kind));
  if (kind === undefined) throw new Error(`not a catalog record: kind ${String(value.kind)}`);
  const def = catalogDef(kind);
  const record: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(def.fields)) {
    const v = value[catalogAvroFieldName(name, field)];
    if (v === undefined || v === null) continue;
    record[name] = isJsonCatalogField(field) || field.type.kind === 'any' ? JSON.parse(v as string) : v;
  }
  return {
    app_id: value.app_id as string,
    id: value.id as string,
    kind,
    received_at: value.received_at as number,
    request_id: value.request_id as string,
    record,
    extra: typeof value.extra_json === 'string' ? (JSON.parse(value.extra_json) as Record<string, unknown>) : null,
  };
}
