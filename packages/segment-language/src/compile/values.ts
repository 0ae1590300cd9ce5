import type { FieldType } from '@evp/schemas';
import type { Op } from '../definition';
import { FIELD_NAME, storedEnumValue, valueClass, type ResolvedPath } from '../language/contract';
import type { Params } from './params';

/**
 * Reading values and comparing them. JSON columns (`props`, a catalog's `record`) are read as
 * docs/analytics.md describes: `col.path.:String` / `.:Bool` (the typed subcolumn, NULL when absent),
 * `col.path::Nullable(Float64)` for numbers (integers and floats alike); through an array of objects
 * `col.a[].b.:String` / `.:Bool`, and `col.a[].b::Array(Nullable(Float64))` for numbers (casts for
 * deeper arrays). Every comparison is
 * made non-NULL here, so the boolean combination of conditions is two-valued (`not` of an absent
 * value is true, never NULL).
 */

/** The ClickHouse type a scalar or enum value is read and compared as. */
function scalarType(type: FieldType): string {
  const cls = valueClass(type);
  if (cls === 'number') return 'Float64';
  if (cls === 'boolean') return 'Bool';
  return 'String';
}

/** A value as read: one (`many` false, NULL when absent) or the elements reached through `[]` (an array). */
export interface Read {
  expr: string;
  type: FieldType;
  many: boolean;
  /** SQL true when the value is present (for `exists`). */
  present: string;
}

/** The name checked once more: the compiler writes only contract names, never unchecked input. */
function name(n: string): string {
  if (!FIELD_NAME.test(n)) throw new Error(`not a contract field name: ${JSON.stringify(n)}`);
  return n;
}

/** A resolved path of a JSON column (`props` or `record`). */
export function readJson(column: 'props' | 'record', path: ResolvedPath): Read {
  const last = path.steps.length - 1;
  // `a[].b` reads b of every element of the array of objects a; a final `tags[]` reads the array itself.
  const text = `${column}.${path.steps.map((s, i) => (s.each && i < last ? `${name(s.name)}[]` : name(s.name))).join('.')}`;
  const cls = valueClass(path.type);
  if (path.many) {
    const depth = path.steps.filter((s) => s.each).length;
    const typed = scalarType(path.type);
    // b of every element of one array of objects (`a[].b`), a string or boolean: the elements'
    // typed subcolumn, as for a single value below (about half the cost of the cast).
    if (depth === 1 && !path.steps[last]?.each && typed !== 'Float64') {
      const expr = `${text}.:${typed}`;
      return { expr, type: path.type, many: true, present: `arrayExists(v -> isNotNull(v), ${expr})` };
    }
    const cast = `${text}::${'Array('.repeat(depth)}Nullable(${typed})${')'.repeat(depth)}`;
    const expr = depth > 1 ? `arrayFlatten(${cast})` : cast;
    return { expr, type: path.type, many: true, present: `arrayExists(v -> isNotNull(v), ${expr})` };
  }
  const dotted = path.steps.map((s) => s.name).join('.');
  // An object's (or a map's, or an any's object) presence is that of anything inside it: `col.^path` is the sub-object.
  const objectPresent = `NOT empty(${column}.^${dotted})`;
  if (cls === 'object') return { expr: text, type: path.type, many: false, present: objectPresent };
  if (cls === 'any') return { expr: text, type: path.type, many: false, present: `(isNotNull(${text}) OR ${objectPresent})` };
  if (cls === 'array' && path.type.kind === 'array') {
    return { expr: `${text}::Array(Nullable(${scalarType(path.type.items)}))`, type: path.type, many: false, present: `isNotNull(${text})` };
  }
  // Strings (enums too) and booleans are stored as exactly that JSON type (validated, and inserts
  // never infer dates from strings: docs/analytics.md), so the typed subcolumn reads them without a
  // cast from Dynamic, markedly faster. Numbers arrive as Int64 or Float64 alike and need the cast.
  const typed = scalarType(path.type);
  const expr = typed === 'Float64' ? `${text}::Nullable(Float64)` : `${text}.:${typed}`;
  return { expr, type: path.type, many: false, present: `isNotNull(${text})` };
}

/** A column (or computed value) already of the comparison type, NULL when absent. */
export const readColumn = (expr: string, type: FieldType): Read => ({ expr, type, many: false, present: `isNotNull(${expr})` });

/** A literal of the definition as a parameter of the compared type (enum aliases as stored). */
function literal(params: Params, value: unknown, type: FieldType): string {
  return params.add(type.kind === 'enum' ? storedEnumValue(type, value as string) : value, scalarType(type));
}

function literals(params: Params, values: unknown[], type: FieldType): string {
  const stored = type.kind === 'enum' ? values.map((v) => storedEnumValue(type, v as string)) : values;
  return params.add(stored, `Array(${scalarType(type)})`);
}

/** `x op value` for one value `x` (possibly NULL; the result then is NULL). */
function compareOne(x: string, op: Exclude<Op, 'neq' | 'nin' | 'exists'>, value: unknown, type: FieldType, params: Params): string {
  switch (op) {
    case 'eq':
      return `${x} = ${literal(params, value, type)}`;
    case 'in':
      return `has(${literals(params, value as unknown[], type)}, ${x})`;
    case 'gt':
      return `${x} > ${literal(params, value, type)}`;
    case 'gte':
      return `${x} >= ${literal(params, value, type)}`;
    case 'lt':
      return `${x} < ${literal(params, value, type)}`;
    case 'lte':
      return `${x} <= ${literal(params, value, type)}`;
    case 'contains':
      return type.kind === 'array' ? `has(${x}, ${literal(params, value, type.items)})` : `position(${x}, ${literal(params, value, type)}) > 0`;
  }
}

/**
 * A predicate as SQL that is never NULL. An absent value matches nothing but `neq` and `nin`, which
 * are exactly `not eq` and `not in`; through `[]` a predicate holds when one element matches (and
 * `neq`/`nin` when none does).
 */
export function predicate(read: Read, op: Op, value: unknown, params: Params): string {
  if (op === 'exists') return read.present;
  if (op === 'neq') return `NOT ${predicate(read, 'eq', value, params)}`;
  if (op === 'nin') return `NOT ${predicate(read, 'in', value, params)}`;
  if (read.many) return `arrayExists(v -> ${compareOne('v', op, value, read.type, params)}, ${read.expr})`;
  return `ifNull(${compareOne(read.expr, op, value, read.type, params)}, 0)`;
}
