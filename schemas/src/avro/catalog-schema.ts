import { topics, type CatalogKind } from '@evp/core';
import { catalogDef } from '../catalogs/definitions';
import type { FieldDef } from '../dsl/types';
import { AvroNames, avroField, type AvroSchema } from './derive';
import { blockSubject } from './block-schema';

/**
 * Catalog fields that travel as JSON text: free-form values (`attributes`: an object of any JSON
 * values) have no Avro shape. They are named `<field>_json`, the convention the sink already reads
 * (services/segmenter/src/sink/rows.ts catalogRow parses `x_json` back into `x`).
 */
export function isJsonCatalogField(field: FieldDef): boolean {
  return field.type.kind === 'any' || (field.type.kind === 'map' && field.type.values.kind === 'any');
}

export const catalogAvroFieldName = (name: string, field: FieldDef) => (isJsonCatalogField(field) ? `${name}_json` : name);

/**
 * One schema per catalog topic (`catalog.<kind>`, subject `catalog.<kind>-value`), derived from the
 * kind's definition: the common fields every catalog row has (app_id, id, kind, received_at,
 * request_id), then the typed fields flat (so the sink's generic reader keeps them as the record),
 * then `extra_json`. Optional fields are `["null", T]` with default null, so adding one later is
 * BACKWARD compatible. Same conventions as the event schemas (avro/derive.ts): enums as strings.
 */
export function catalogSchema(kind: CatalogKind): AvroSchema {
  const def = catalogDef(kind);
  const namespace = `evp.catalog.${kind}`;
  const names = new AvroNames(namespace);
  const typed = Object.entries(def.fields)
    .filter(([name]) => name !== 'id')
    .map(([name, field]) =>
      isJsonCatalogField(field)
        ? { ...avroField(catalogAvroFieldName(name, field), { ...field, type: { kind: 'any' } }, names), doc: `${field.doc ?? name}; JSON text` }
        : avroField(name, field, names),
    );
  return {
    type: 'record',
    name: def.name,
    namespace,
    doc: `${def.doc ?? `Catalog records of kind ${kind}`}${def.deprecated ? ' (deprecated)' : ''}`,
    fields: [
      { name: 'app_id', type: 'string', doc: "the SDK key's app" },
      { name: 'id', type: 'string' },
      { name: 'kind', type: 'string', doc: 'catalog kind (aliases resolved)' },
      { name: 'received_at', type: 'long', doc: 'UTC epoch ms, set by the gateway' },
      { name: 'request_id', type: 'string' },
      ...typed,
      { name: 'extra_json', type: ['null', 'string'], default: null, doc: 'Unknown properties, as JSON' },
    ],
  };
}

export const catalogTopic = (kind: CatalogKind) => topics.catalog(kind);
export const catalogSubject = (kind: CatalogKind) => blockSubject(topics.catalog(kind));
