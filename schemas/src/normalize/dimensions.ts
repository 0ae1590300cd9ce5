import { userRecordVerdict } from './user-token';
import type { Reason } from '../rules/registry';
import type { IngestContext } from '../canonical';
import { catalogKindOf, unknownCatalogKindMessage } from '../catalogs/custom';
import { catalogDef, catalogKindAlias } from '../catalogs/definitions';
import { identifyCatalogClient, type Sender } from '../clients/identity';
import type { CatalogDef } from '../catalogs/types';
import type { FieldDef } from '../dsl/types';
import { normalizeCustomRecord, normalizeRecord, type AcceptedCatalogRecord } from './catalog';
import { isObject } from '@evp/contract';
import { parseEventTime } from './time';
import { DEFAULT_NORMALIZE_OPTIONS, type NormalizeOptions, type NormalizeResult, type Rejection } from './types';

/**
 * The Kenkai catalog upload (`CatalogAPIHandler.swift`, `CatalogItemModel.swift`):
 * `{"data": [{"id", "type", "kv": {string: string}}]}`, every subject mixed in one body. Each
 * element is judged on its own: its `type` names the kind (aliases resolved by resolveCatalogKind:
 * `user_chw` → hcw; kinds added to the schemas later are picked up as they come; any other
 * lower-case name is an app-defined kind, catalogs/custom.ts, whose `kv` is kept as sent), `id` is the
 * record's id, and `kv` holds the fields as strings (the client's `flattenMapToString`), read back
 * into the definition's types (readKv). Counts add up as for catalog submissions: elements in =
 * accepted + Σ rejected.event_count; a body that is not this shape is one envelope_violation.
 * `sender`: the client the upload identified (by default what the route alone says: Kenkai iOS or
 * the Unity SDK's Kenkai Core); its quirks are gated as in events.
 */
export function normalizeDimensions(
  body: unknown,
  ctx: IngestContext,
  options: NormalizeOptions = DEFAULT_NORMALIZE_OPTIONS,
  sender: Sender = identifyCatalogClient({ route: 'dimensions' }),
): NormalizeResult<AcceptedCatalogRecord> {
  const out: NormalizeResult<AcceptedCatalogRecord> = { accepted: [], rejected: [] };
  const data = isObject(body) ? body.data : undefined;
  if (!Array.isArray(data)) {
    const path = isObject(body) ? '$.data' : '$';
    out.rejected.push(
      rejection('envelope_violation', [{ path, rule: 'type', message: 'a dimensions upload is {"data": [{"id", "type", "kv"}]}' }], body, null, 1),
    );
    return out;
  }
  data.forEach((item, i) => {
    const path = `$.data[${i}]`;
    const reject = (reasons: Reason[], kind: Rejection['kind'] = 'schema_violation') => out.rejected.push(rejection(kind, reasons, item, i, 1));
    if (!isObject(item)) return reject([{ path, rule: 'type', message: 'a dimension record must be an object' }]);
    const reasons: Reason[] = [];
    if (typeof item.type !== 'string')
      reasons.push({ path: `${path}.type`, rule: item.type === undefined ? 'required' : 'type', message: 'type must be a string (the catalog kind)' });
    if (typeof item.id !== 'string') reasons.push({ path: `${path}.id`, rule: item.id === undefined ? 'required' : 'type', message: 'id must be a string' });
    if (item.kv !== undefined && item.kv !== null && !isObject(item.kv))
      reasons.push({ path: `${path}.kv`, rule: 'type', message: 'kv must be an object of strings' });
    if (reasons.length > 0) return reject(reasons);
    const of = catalogKindOf(item.type as string);
    if (of === undefined) return reject([{ path: `${path}.type`, rule: 'unknown_catalog_kind', message: unknownCatalogKindMessage(item.type) }]);
    if (of.custom) {
      // No definition to type the `kv` strings by: they are kept as sent (Unity: `name` and the app's meta).
      const made = normalizeCustomRecord(
        of.kind,
        { ...(item.kv as Record<string, unknown> | null | undefined), id: item.id },
        path,
        `${path}.type`,
        ctx,
        options,
      );
      if ('record' in made) out.accepted.push({ ...made, index: i });
      else reject(made.reasons, made.kind);
      return;
    }
    const def = catalogDef(of.kind);
    const warnings: Reason[] = [];
    const fields = readKv(def, (item.kv ?? {}) as Record<string, unknown>, `${path}.kv`, warnings);
    const alias = catalogKindAlias(item.type as string);
    const made = normalizeRecord(
      def,
      { ...fields, id: item.id },
      `${path}.kv`,
      ctx,
      options,
      sender,
      alias && { name: item.type as string, ...alias },
      warnings,
    );
    if (!('record' in made)) return reject(made.reasons, made.kind);
    // A user record is that person's profile: the upload's user token decides it (user-token.ts).
    const token = userRecordVerdict(ctx, made.record.kind, made.record.id, path);
    if (token?.reject) return reject([token.reason]);
    out.accepted.push({ record: made.record, warnings: token ? [...made.warnings, token.reason] : made.warnings, index: i });
  });
  return out;
}

function rejection(kind: Rejection['kind'], reasons: Reason[], payload: unknown, index: number | null, count: number): Rejection {
  return { kind, reasons, payload, event_count: count, envelope_index: null, event_index: index, event_name: null };
}

const INTEGER = /^-?\d+$/;
const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
const TRUE = new Set(['1', 'true']);
const FALSE = new Set(['0', 'false']);

/**
 * `kv` strings → the definition's types, each change a `catalog_string_coerced` warning: integers
 * (`"1990"`), numbers (`"24.8607"`), booleans (`"1"/"0"` from Kenkai iOS, `"true"/"false"` from
 * Unity), `", "`-joined lists, epoch ms. A string that does not parse is left for the validator
 * (`type`). Keys stay as sent: a client name of a field (patient `has_whatsapp`) is typed by that
 * field and read by the validator (`property_alias`), and values that mean "not set" to every client
 * (`birth_year` 0) are the definition's business (`unset_value`). Only the `"0","0"`
 * latitude/longitude pair, a default of this client's site model, is left out here (`default_zero`).
 * Unknown keys stay strings (extras).
 */
export function readKv(def: CatalogDef, kv: Record<string, unknown>, path: string, warnings: Reason[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const fields = fieldsBySentKey(def);
  for (const [key, v] of Object.entries(kv)) {
    const field = fields.get(key);
    const value = field && typeof v === 'string' ? fromString(field, v) : v;
    if (value !== v)
      warnings.push({ path: `${path}.${key}`, rule: 'catalog_string_coerced', message: `${JSON.stringify(v)} read as ${JSON.stringify(value)}` });
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  if (out.latitude === 0 && out.longitude === 0 && def.fields.latitude) {
    for (const key of ['latitude', 'longitude']) {
      delete out[key];
      warnings.push({ path: `${path}.${key}`, rule: 'default_zero', message: '0,0 is the client default for no coordinates; left out' });
    }
  }
  return out;
}

const sentKeys = new WeakMap<CatalogDef, ReadonlyMap<string, FieldDef>>();
/** A definition's fields by every key a client may send them under: name, spec aliases, client names. */
function fieldsBySentKey(def: CatalogDef): ReadonlyMap<string, FieldDef> {
  let m = sentKeys.get(def);
  if (!m) {
    const byKey = new Map<string, FieldDef>();
    for (const [name, f] of Object.entries(def.fields))
      for (const k of [name, ...(f.aliases ?? []), ...(f.client?.aliases ?? [])]) if (!byKey.has(k)) byKey.set(k, f);
    sentKeys.set(def, (m = byKey));
  }
  return m;
}

function fromString(field: FieldDef, v: string): unknown {
  const t = field.type;
  if (t.kind === 'scalar') {
    if ((t.scalar === 'int' || t.scalar === 'long') && INTEGER.test(v)) return Number(v);
    if ((t.scalar === 'float' || t.scalar === 'double') && NUMBER.test(v)) return Number(v);
    if (t.scalar === 'boolean' && (TRUE.has(v) || FALSE.has(v))) return TRUE.has(v);
    return v;
  }
  if (t.kind === 'array' && (t.items.kind === 'scalar' || t.items.kind === 'enum')) return v.length === 0 ? [] : v.split(', ');
  if (t.kind === 'epochMs') return INTEGER.test(v) ? Number(v) : (parseEventTime(v, undefined) ?? v);
  return v;
}
