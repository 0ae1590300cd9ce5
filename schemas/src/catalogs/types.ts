import type { CatalogKind } from '@evp/core';
import type { ObjectDef } from '../dsl/types';

/**
 * A catalog kind's definition (spec 2.4): an ObjectDef (so the same validator, Avro derivation,
 * type and docs generators apply) plus what only catalogs have. `id` is always one of the fields.
 */
export interface CatalogDef extends ObjectDef {
  kind: CatalogKind;
  /** Accepted for old clients but replaced by another kind (facility → site, spec 9). */
  deprecated?: boolean;
  /**
   * The id a record gets when it has none (spec 2.4: blood and oxygen). Computed from the record
   * as sent, before validation; returns undefined when the fields it needs are missing, in which
   * case `id` is reported as required like anywhere else.
   */
  defaultId?: (record: Record<string, unknown>) => string | undefined;
  /** Human description of `defaultId`, for the docs and the `default_id` warning. */
  defaultIdDoc?: string;
}
