import type { CatalogKind } from '@evp/core';
import { catalogKindNames, resolveCatalogKind } from './definitions';

/**
 * App-defined (custom) catalog kinds. The Unity SDK 1.0.10 lets an app upload records of kinds it
 * names itself (`CFSDK.LogOtherCatalog(id, "Game Item", meta)` → `{"id", "type": "game_item", "kv":
 * {name, …meta}}` on POST /v1/ingest/dimensions: the name trimmed, whitespace runs → `_`,
 * lower-cased). The platform has no definition for such a kind, so it keeps its records generically
 * (id, and every other field as sent) on one topic and in one table, `catalog_custom`
 * (docs/data-contract.md, "App-defined catalog kinds"). A name is an app-defined kind when it is no
 * built-in kind or alias (those always win) and matches CUSTOM_CATALOG_KIND_PATTERN: a lower-case
 * identifier, which is what the client makes of a plain name, and safe wherever a kind is used (a
 * column value, a Kafka key, a URL segment, a view name). Anything else cannot be interpreted and
 * is rejected with `unknown_catalog_kind`, saying why.
 */
export const CUSTOM_CATALOG_KIND_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
const RULE = `${CUSTOM_CATALOG_KIND_PATTERN.source.slice(1, -1)}: a lower-case letter, then up to 63 lower-case letters, digits or _`;

/** What a submitted catalog kind name means. */
export type CatalogKindOf = { custom: false; kind: CatalogKind } | { custom: true; kind: string };

/** A built-in kind (aliases resolved), an app-defined kind, or undefined when the name is neither. */
export function catalogKindOf(name: string): CatalogKindOf | undefined {
  const kind = resolveCatalogKind(name);
  if (kind !== undefined) return { custom: false, kind };
  return CUSTOM_CATALOG_KIND_PATTERN.test(name) ? { custom: true, kind: name } : undefined;
}

/** Why a name is no catalog kind (for the rejection and the gateway's 404). */
export function unknownCatalogKindMessage(name: unknown): string {
  return `catalog kind ${JSON.stringify(name)} is neither a built-in kind (${catalogKindNames().join(', ')}) nor an app-defined kind name (${RULE})`;
}
