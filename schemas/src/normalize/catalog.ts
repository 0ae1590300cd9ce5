import { userRecordVerdict } from './user-token';
import { rawHeaders } from '@evp/contract';
import type { CatalogKind } from '@evp/core';
import type { Reason } from '../rules/registry';
import type { IngestContext } from '../canonical';
import { catalogKindOf, unknownCatalogKindMessage } from '../catalogs/custom';
import { catalogDef, catalogKindAlias, type CatalogKindAlias } from '../catalogs/definitions';
import type { CatalogDef } from '../catalogs/types';
import { validateObject } from '../dsl/validate';
import { SPEC_CLIENT, type Sender } from '../clients/identity';
import { gateWarnings } from '../quirks/gate';
import { applyCatalogQuirks } from './catalog-quirks';
import { isObject } from '@evp/contract';
import { DEFAULT_NORMALIZE_OPTIONS, type NormalizeOptions, type NormalizeResult, type Rejection } from './types';

/** What a catalog submission's record becomes (see docs/data-contract.md, "Catalog records"). */
export interface CanonicalCatalogRecord {
  /** The key's app (never anything in the record). */
  app_id: string;
  id: string;
  /** Canonical kind (aliases resolved: user_chw → hcw). */
  kind: CatalogKind;
  received_at: number;
  request_id: string;
  /** Validated typed fields of the kind's definition, `id` included; absent optionals are absent. */
  record: Record<string, unknown>;
  /** Properties the definition does not know, kept (never dropped) and reported as warnings. */
  extra: Record<string, unknown> | null;
}

/**
 * A record of an app-defined kind (catalogs/custom.ts): no definition, so nothing but `id` is
 * checked and every other field is kept as sent (docs/data-contract.md, "App-defined catalog kinds").
 */
export interface CustomCatalogRecord {
  custom: true;
  /** The key's app (never anything in the record). */
  app_id: string;
  id: string;
  /** The app's own kind name, as sent (CUSTOM_CATALOG_KIND_PATTERN). */
  kind: string;
  received_at: number;
  request_id: string;
  /** Every field but `id`, as sent (from the dimensions upload: the `kv` strings). */
  record: Record<string, unknown>;
}

export interface AcceptedCatalogRecord {
  record: CanonicalCatalogRecord | CustomCatalogRecord;
  warnings: Reason[];
  /** Index of the record in its submission (null for records derived from an identify event). */
  index: number | null;
}

/**
 * A catalog submission (a JSON array of records of one kind) → canonical catalog records and
 * rejections. Never throws. Each record is judged on its own, so one bad record never rejects its
 * siblings, and `records in = accepted + Σ rejected.event_count` (a body that is not an array, or
 * of an unknown kind, is one rejection standing for every record it holds, at least 1). `sender` is
 * the client the upload identified (identifyCatalogClient): a quirk of another client meets the
 * spec's rule, as in events.
 */
export function normalizeCatalog(
  kindName: string,
  body: unknown,
  ctx: IngestContext,
  options: NormalizeOptions = DEFAULT_NORMALIZE_OPTIONS,
  sender: Sender = SPEC_CLIENT,
): NormalizeResult<AcceptedCatalogRecord> {
  const out: NormalizeResult<AcceptedCatalogRecord> = { accepted: [], rejected: [] };
  const whole = (kind: Rejection['kind'], reasons: Reason[]) =>
    out.rejected.push({
      kind,
      reasons,
      payload: body,
      event_count: Array.isArray(body) ? Math.max(body.length, 1) : 1,
      envelope_index: null,
      event_index: null,
      event_name: null,
    });
  const of = catalogKindOf(kindName);
  if (of === undefined) {
    // The gateway answers 404 to names that are no kind, so this is a producer bug or a newer
    // gateway: nothing in the body can be read without knowing its kind.
    whole('parse_violation', [{ path: `headers.${rawHeaders.payloadKind}`, rule: 'unknown_catalog_kind', message: unknownCatalogKindMessage(kindName) }]);
    return out;
  }
  if (!Array.isArray(body)) {
    whole('envelope_violation', [{ path: '$', rule: 'type', message: `a catalog submission must be a JSON array of ${of.kind} records` }]);
    return out;
  }
  const alias = catalogKindAlias(kindName);
  body.forEach((item, i) => {
    const path = `$[${i}]`;
    const made = of.custom
      ? normalizeCustomRecord(of.kind, item, path, path, ctx, options)
      : normalizeRecord(catalogDef(of.kind), item, path, ctx, options, sender, alias === undefined ? undefined : { name: kindName, ...alias });
    const token = 'record' in made ? userRecordVerdict(ctx, made.record.kind, made.record.id, path) : null;
    if ('record' in made && !token?.reject) out.accepted.push({ ...made, warnings: token ? [...made.warnings, token.reason] : made.warnings, index: i });
    else {
      out.rejected.push({
        kind: 'record' in made ? 'schema_violation' : made.kind,
        reasons: 'record' in made ? [(token as { reason: Reason }).reason] : made.reasons,
        payload: item,
        event_count: 1,
        envelope_index: null,
        event_index: i,
        event_name: null,
      });
    }
  });
  return out;
}

type Made = Omit<AcceptedCatalogRecord, 'index'> | { kind: Rejection['kind']; reasons: Reason[] };

/**
 * One record of an app-defined kind → a CustomCatalogRecord or why not. There is no definition, so
 * only what any catalog record needs is checked: an object of bounded size with a non-empty string
 * `id`. The other fields are kept as sent, and every record carries the `custom_catalog_kind`
 * warning (at `kindPath`, where the kind was named), so an app sees that its kind was not a
 * built-in one — a misspelt built-in kind included.
 */
export function normalizeCustomRecord(kind: string, item: unknown, path: string, kindPath: string, ctx: IngestContext, options: NormalizeOptions): Made {
  const size = JSON.stringify(item)?.length ?? 0;
  if (size > options.maxEventChars) {
    return { kind: 'size_violation', reasons: [{ path, rule: 'max_size', message: `record is ${size} characters; the limit is ${options.maxEventChars}` }] };
  }
  if (!isObject(item)) return { kind: 'schema_violation', reasons: [{ path, rule: 'type', message: `a ${kind} record must be an object` }] };
  const id = item.id;
  const idPath = `${path}.id`;
  if (id === undefined || id === null) return { kind: 'schema_violation', reasons: [{ path: idPath, rule: 'required', message: 'id is required' }] };
  if (typeof id !== 'string') return { kind: 'schema_violation', reasons: [{ path: idPath, rule: 'type', message: 'id must be a string' }] };
  // An empty id would make every such record the same row (and the sink refuses it).
  if (id.length === 0) return { kind: 'schema_violation', reasons: [{ path: idPath, rule: 'non_empty', message: 'id must not be empty' }] };
  const record: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item))
    if (k !== 'id') Object.defineProperty(record, k, { value: v, enumerable: true, writable: true, configurable: true });
  return {
    record: { custom: true, app_id: ctx.appId, id, kind, received_at: ctx.receivedAt, request_id: ctx.requestId, record },
    warnings: [
      {
        path: kindPath,
        rule: 'custom_catalog_kind',
        message: `${kind} is no built-in catalog kind: kept as an app-defined kind (table catalog_custom), its fields as sent and unchecked`,
      },
    ],
  };
}

/**
 * One record of a kind → a canonical record or why not (shared by catalog submissions and the
 * dimensions upload); `alias` when the client named the kind by one of its aliases (aliasedRecord);
 * `prior` the warnings of reading the record before (the dimensions upload's `kv` strings). Every
 * warning is gated by `sender` (quirks/gate.ts): a quirk of another client adds its spec rule to the
 * record's reasons, so a rejection lists all its reasons at once.
 */
export function normalizeRecord(
  def: CatalogDef,
  item: unknown,
  path: string,
  ctx: IngestContext,
  options: NormalizeOptions,
  sender: Sender,
  alias?: CatalogKindAlias & { name: string },
  prior: readonly Reason[] = [],
): Made {
  const size = JSON.stringify(item)?.length ?? 0;
  if (size > options.maxEventChars) {
    return { kind: 'size_violation', reasons: [{ path, rule: 'max_size', message: `record is ${size} characters; the limit is ${options.maxEventChars}` }] };
  }
  if (!isObject(item)) return { kind: 'schema_violation', reasons: [{ path, rule: 'type', message: `a ${def.kind} record must be an object` }] };
  const quirks = applyCatalogQuirks(def, item, path);
  const warnings: Reason[] = [...prior, ...quirks.warnings];
  let input = quirks.record;
  if ((item.id === undefined || item.id === null) && def.defaultId) {
    const derived = def.defaultId(item);
    if (derived !== undefined) {
      input = { ...input, id: derived };
      warnings.push({ path: `${path}.id`, rule: 'default_id', message: `no id; defaulted to ${derived} (${def.defaultIdDoc ?? 'kind default'})` });
    }
  }
  if (alias !== undefined) input = aliasedRecord(alias, input, path, warnings);
  const v = validateObject(def, input, path);
  const reasons = [...v.reasons];
  // An empty id would make every such record the same row (and the sink refuses it).
  if (typeof v.value.id === 'string' && v.value.id.length === 0) reasons.push({ path: `${path}.id`, rule: 'non_empty', message: 'id must not be empty' });
  reasons.push(...receiptChecks(v.value, path, ctx.receivedAt, reasons));
  if (def.deprecated) {
    warnings.push({ path, rule: 'deprecated_kind', message: `the ${def.kind} catalog is deprecated; send site records instead` });
  }
  warnings.push(...v.warnings);
  const gated = gateWarnings(warnings, sender, reasons);
  if (reasons.length > 0) return { kind: 'schema_violation', reasons };
  return {
    record: {
      app_id: ctx.appId,
      id: v.value.id as string,
      kind: def.kind,
      received_at: ctx.receivedAt,
      request_id: ctx.requestId,
      record: v.value,
      extra: Object.keys(v.unknown).length > 0 ? v.unknown : null,
    },
    warnings: [...gated],
  };
}

/**
 * A record submitted under a client's own name of the kind (catalogKindAliases): named by a
 * `catalog_kind_alias` warning, and the fields such records never have get the value their absence
 * means (`default_applied`).
 */
function aliasedRecord(alias: CatalogKindAlias & { name: string }, item: Record<string, unknown>, path: string, warnings: Reason[]): Record<string, unknown> {
  if (alias.clients !== undefined) {
    warnings.push({
      path,
      rule: 'catalog_kind_alias',
      message: `${alias.name} is the ${alias.kind} catalog as ${alias.clients} name it; stored as ${alias.kind}`,
    });
  }
  let out = item;
  for (const [field, d] of Object.entries(alias.defaults ?? {})) {
    if (out[field] !== undefined && out[field] !== null) continue;
    out = { ...out, [field]: d.value };
    warnings.push({ path: `${path}.${field}`, rule: 'default_applied', message: `${field} is absent; defaulted to ${JSON.stringify(d.value)} (${d.doc})` });
  }
  return out;
}

/**
 * Checks that depend on when the record was received, which a definition cannot express:
 * a birth_year after the year of receipt is implausible (`birth_year_future`). A field that already
 * has an error (e.g. `range`) is not reported twice.
 */
export function receiptChecks(value: Record<string, unknown>, path: string, receivedAt: number, existing: readonly Reason[] = []): Reason[] {
  if (existing.some((e) => e.path === `${path}.birth_year`)) return [];
  const birthYear = value.birth_year;
  const receivedYear = new Date(receivedAt).getUTCFullYear();
  if (typeof birthYear === 'number' && Number.isFinite(receivedYear) && birthYear > receivedYear) {
    return [
      { path: `${path}.birth_year`, rule: 'birth_year_future', message: `birth_year ${birthYear} is after the year the record was received (${receivedYear})` },
    ];
  }
  return [];
}
