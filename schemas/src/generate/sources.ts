import { BLOCKS, CATALOG_KINDS, topics, type Block } from '@evp/core';
import * as contract from '../index';
import { blockEventSchema } from '../avro/block-schema';
import { AvroNames, avroRecord, type AvroSchema } from '../avro/derive';
import type { EventDef, ObjectDef } from '../dsl/types';
import { eventsOfBlock } from '../events/event-defs';
import { actionLogEntrySchema } from '../action-log';
import { customCatalogSchema } from '../avro/custom-catalog';
import { membershipChangeSchema } from '../membership';
import { ingestReceiptSchema } from '../receipt';
import { rejectedRecordSchema } from '../rejected';

/**
 * What the generator covers, in one place. Everything is read from the live definitions when the
 * generator runs (BLOCKS × eventDefs, the catalog list, the rejected record), so a new event or
 * catalog kind shows up in the generated files without touching this directory.
 */

export interface BlockSource {
  block: Block;
  topic: string;
  events: EventDef[];
  avro: AvroSchema;
}

export interface CatalogSource {
  kind: string;
  topic: string;
  def: ObjectDef;
  deprecated: boolean;
  /** How a record without an id gets one (blood, oxygen), in words. */
  defaultIdDoc?: string;
  avro: AvroSchema;
}

export function blockSources(): BlockSource[] {
  return BLOCKS.map((block) => ({ block, topic: topics.events(block), events: eventsOfBlock(block), avro: blockEventSchema(block) }));
}

/**
 * THE single place where catalog definitions are picked up. The catalog definitions are being
 * written beside this generator, so they are looked up by export name at run time instead of by a
 * static import (which would not compile before they exist). Each entry must be an ObjectDef with a
 * `kind` (a CatalogKind); an Avro builder, when exported, is preferred over deriving one here so the
 * committed .avsc is exactly what the validator registers.
 * To wire a differently named export, add its name to the lists below.
 */
const CATALOG_LIST_EXPORTS = ['catalogDefs', 'catalogDefinitions', 'CATALOG_DEFS'] as const;
const CATALOG_AVRO_EXPORTS = ['catalogSchema', 'catalogRecordSchema', 'catalogAvroSchema'] as const;

type CatalogDefLike = ObjectDef & { kind: string; deprecated?: boolean; defaultIdDoc?: string };

const isCatalogDef = (v: unknown): v is CatalogDefLike =>
  typeof v === 'object' && v !== null && typeof (v as CatalogDefLike).kind === 'string' && typeof (v as CatalogDefLike).fields === 'object';

export function catalogSources(exports: Record<string, unknown> = contract): CatalogSource[] {
  const listName = CATALOG_LIST_EXPORTS.find((n) => Array.isArray(exports[n]));
  if (listName === undefined) return [];
  const list = exports[listName] as unknown[];
  const bad = list.filter((d) => !isCatalogDef(d));
  if (bad.length > 0) throw new Error(`${listName} holds ${bad.length} entries that are not catalog definitions (ObjectDef with kind)`);
  const builderName = CATALOG_AVRO_EXPORTS.find((n) => typeof exports[n] === 'function');
  const builder = builderName ? (exports[builderName] as (kind: string) => AvroSchema) : undefined;
  return (list as CatalogDefLike[]).map((def) => {
    if (!(CATALOG_KINDS as readonly string[]).includes(def.kind)) throw new Error(`catalog definition ${def.name} has unknown kind ${def.kind}`);
    return {
      kind: def.kind,
      topic: topics.catalog(def.kind as (typeof CATALOG_KINDS)[number]),
      def,
      deprecated: def.deprecated === true,
      ...(typeof def.defaultIdDoc === 'string' ? { defaultIdDoc: def.defaultIdDoc } : {}),
      avro: builder ? builder(def.kind) : avroRecord(def, new AvroNames(`evp.catalog.${def.kind}`)),
    };
  });
}

/** The one topic of every app-defined catalog kind (catalogs/custom.ts): no definition, one schema. */
export const customCatalogSource = { topic: topics.customCatalog, avro: customCatalogSchema };

export const rejectedSource = { topic: topics.rejected, avro: rejectedRecordSchema as unknown as AvroSchema };

export const receiptSource = { topic: topics.receipts, avro: ingestReceiptSchema as unknown as AvroSchema };

export const membershipSource = { topic: topics.segmentsMembership, avro: membershipChangeSchema as unknown as AvroSchema };
export const actionLogSource = { topic: topics.actionsLog, avro: actionLogEntrySchema as unknown as AvroSchema };
