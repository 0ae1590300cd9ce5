import { z } from 'zod';
import type { FieldLimits, RecordField } from '@evp/schemas';
import { parseIsoWithOffset } from './time';

/**
 * A field table (schemas/src/action-request.ts) → the zod schema that reads it from JSON, limits
 * included, so an action's shape is written once for POST /v1/actions and `actions.requested`. zod
 * is the reader because it reports every problem with its path (an app fixes them in one round
 * trip); the record reader of the other internal topics stops at the first.
 *
 * `refine` adds a check to a field of this table by name (a rule that is not a limit: `user_id` is
 * never `*`); `items` gives a list field's item schema (a nested table with its own refinements).
 */
export interface FieldsSchemaOptions {
  refine?: Record<string, (schema: z.ZodTypeAny) => z.ZodTypeAny>;
  items?: Record<string, z.ZodTypeAny>;
}

const FORMAT_MESSAGES: Record<NonNullable<FieldLimits['format']>, string> = {
  timestamp: 'must be an RFC 3339 timestamp with offset, e.g. 2025-01-31T09:00:00+05:45 (expired_at 0001-01-01T00:00:00Z = never)',
};

/** A string of at most `maxLength` characters (no limit when absent), refused empty with `emptyMessage` when given. */
function text(maxLength: number | undefined, emptyMessage?: string): z.ZodString {
  let s = z.string();
  if (emptyMessage !== undefined) s = s.min(1, emptyMessage);
  return maxLength === undefined ? s : s.max(maxLength);
}

function stringOf(f: RecordField): z.ZodTypeAny {
  const l = f.limits ?? {};
  let s = text(l.maxLength, f.nonEmpty ? 'must not be empty' : undefined);
  if (l.pattern !== undefined) s = s.regex(new RegExp(l.pattern));
  if (l.format === 'timestamp') return s.refine((v) => parseIsoWithOffset(v) !== undefined, FORMAT_MESSAGES.timestamp);
  return s;
}

function countLimits(a: z.ZodArray<z.ZodTypeAny>, l: FieldLimits): z.ZodTypeAny {
  let out = a;
  if (l.minItems !== undefined) out = out.min(l.minItems);
  if (l.maxItems !== undefined) out = out.max(l.maxItems);
  return out;
}

/** A JSON object of string values; its entries counted against minItems and maxItems. */
function mapOf(l: FieldLimits): z.ZodTypeAny {
  const map = z.record(text(l.keyMaxLength, l.nonEmptyItems ? 'names must not be empty' : undefined), text(l.maxLength));
  const { minItems: least, maxItems: most } = l;
  let out: z.ZodTypeAny = map;
  if (least !== undefined) out = out.refine((m) => Object.keys(m as object).length >= least, `at least ${least} ${least === 1 ? 'entry' : 'entries'}`);
  if (most !== undefined) out = out.refine((m) => Object.keys(m as object).length <= most, `at most ${most} entries`);
  return out;
}

function fieldSchema(f: RecordField, opts: FieldsSchemaOptions): z.ZodTypeAny {
  const l = f.limits ?? {};
  switch (f.kind) {
    case 'string':
      return stringOf(f);
    case 'int': {
      let n = z.number().int();
      if (l.min !== undefined) n = n.min(l.min);
      if (l.max !== undefined) n = n.max(l.max);
      return n;
    }
    case 'boolean':
      return z.boolean();
    case 'enum':
      return z.enum((f.symbols ?? []) as [string, ...string[]]);
    case 'stringList':
      return countLimits(z.array(text(l.maxLength, l.nonEmptyItems ? 'must not be empty' : undefined)), l);
    case 'stringMap':
      return mapOf(l);
    case 'record':
      return objectOf(f.fields ?? [], {});
    case 'recordList':
      return countLimits(z.array(opts.items?.[f.name] ?? objectOf(f.fields ?? [], {})), l);
    default:
      throw new Error(`fieldsSchema: field ${f.name} is of kind ${f.kind}, which a JSON request does not hold`);
  }
}

/**
 * The strict zod object of a field table: unknown fields are refused, optional fields may be absent,
 * defaults filled in. `T` is the table's generated type (schemas/generated/records.ts).
 */
export function fieldsSchema<T extends object>(fields: readonly RecordField[], opts: FieldsSchemaOptions = {}): z.ZodType<T, z.ZodTypeDef, unknown> {
  return objectOf(fields, opts) as z.ZodType<T, z.ZodTypeDef, unknown>;
}

function objectOf(fields: readonly RecordField[], opts: FieldsSchemaOptions): z.ZodTypeAny {
  const shape: z.ZodRawShape = {};
  for (const f of fields) {
    let s = fieldSchema(f, opts);
    const refine = opts.refine?.[f.name];
    if (refine) s = refine(s);
    if (f.avroDefault !== undefined) s = s.default(f.avroDefault);
    else if (f.optional) s = s.optional();
    shape[f.name] = s;
  }
  return z.object(shape).strict();
}
