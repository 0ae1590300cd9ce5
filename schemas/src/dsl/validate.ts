import type { RejectionReason } from '@evp/core';
import type { FieldDef, FieldType, ObjectDef } from './types';

export interface ValidationResult {
  /** The value with defaults applied and aliases normalised; unknown keys removed (see `unknown`). */
  value: Record<string, unknown>;
  errors: RejectionReason[];
  /** Keys the definition does not know, kept so they are never silently dropped. */
  unknown: Record<string, unknown>;
  warnings: RejectionReason[];
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Validates an object against its definition. Never throws, whatever the input. */
export function validateObject(def: ObjectDef, input: unknown, path: string): ValidationResult {
  const errors: RejectionReason[] = [];
  const warnings: RejectionReason[] = [];
  const value: Record<string, unknown> = {};
  const unknown: Record<string, unknown> = {};
  if (!isPlainObject(input)) {
    errors.push({ path, rule: 'type', message: `expected an object (${def.name})` });
    return { value, errors, unknown, warnings };
  }
  const consumed = new Set<string>();
  for (const [name, field] of Object.entries(def.fields)) {
    const spelled = [name, ...(field.aliases ?? [])].find((k) => k in input && input[k] !== undefined);
    if (spelled !== undefined) consumed.add(spelled);
    for (const alias of field.aliases ?? []) if (alias in input) consumed.add(alias);
    const raw = spelled === undefined ? undefined : input[spelled];
    const fieldPath = `${path}.${name}`;
    if (raw === undefined || raw === null) {
      if (field.default !== undefined) value[name] = field.default;
      else if (field.required) errors.push({ path: fieldPath, rule: 'required', message: `${name} is required` });
      continue;
    }
    const checked = checkType(field.type, raw, fieldPath, errors, warnings);
    if (checked.ok) {
      checkBounds(field, checked.value, fieldPath, errors);
      value[name] = checked.value;
    }
  }
  for (const [k, v] of Object.entries(input)) {
    if (!consumed.has(k) && !(k in def.fields)) {
      unknown[k] = v;
      warnings.push({ path: `${path}.${k}`, rule: 'unknown_property', message: `${k} is not part of ${def.name}; kept as extra` });
    }
  }
  if (errors.length === 0) {
    for (const rule of def.rules ?? []) {
      for (const p of rule(value)) errors.push({ path: p.path ? `${path}.${p.path}` : path, rule: p.rule, message: p.message });
    }
  }
  return { value, errors, unknown, warnings };
}

function checkBounds(field: FieldDef, v: unknown, path: string, errors: RejectionReason[]) {
  if (typeof v !== 'number') return;
  if (field.min !== undefined && v < field.min) errors.push({ path, rule: 'range', message: `must be ≥ ${field.min}` });
  if (field.max !== undefined && v > field.max) errors.push({ path, rule: 'range', message: `must be ≤ ${field.max}` });
}

type Checked = { ok: true; value: unknown } | { ok: false };

function checkType(
  type: FieldType,
  raw: unknown,
  path: string,
  errors: RejectionReason[],
  warnings: RejectionReason[],
): Checked {
  const fail = (rule: string, message: string): Checked => {
    errors.push({ path, rule, message });
    return { ok: false };
  };
  switch (type.kind) {
    case 'scalar':
      switch (type.scalar) {
        case 'string':
          return typeof raw === 'string' ? { ok: true, value: raw } : fail('type', 'expected a string');
        case 'boolean':
          return typeof raw === 'boolean' ? { ok: true, value: raw } : fail('type', 'expected a boolean');
        case 'int':
          return Number.isInteger(raw) && Math.abs(raw as number) <= 2147483647
            ? { ok: true, value: raw }
            : fail('type', 'expected a 32-bit integer');
        case 'long':
          return Number.isSafeInteger(raw) ? { ok: true, value: raw } : fail('type', 'expected an integer');
        case 'float':
        case 'double':
          return typeof raw === 'number' && Number.isFinite(raw) ? { ok: true, value: raw } : fail('type', 'expected a number');
      }
      break;
    case 'epochMs':
      return Number.isSafeInteger(raw) && (raw as number) >= 0
        ? { ok: true, value: raw }
        : fail('type', 'expected epoch milliseconds (a non-negative integer)');
    case 'enum':
      return typeof raw === 'string' && type.symbols.includes(raw)
        ? { ok: true, value: raw }
        : fail('enum', `expected one of ${type.symbols.join(', ')}`);
    case 'any':
      return { ok: true, value: raw };
    case 'array': {
      if (!Array.isArray(raw)) return fail('type', 'expected an array');
      const out: unknown[] = [];
      let ok = true;
      raw.forEach((item, i) => {
        if (item === null || item === undefined) {
          ok = false;
          errors.push({ path: `${path}[${i}]`, rule: 'type', message: 'array items may not be null' });
          return;
        }
        const c = checkType(type.items, item, `${path}[${i}]`, errors, warnings);
        if (c.ok) out.push(c.value);
        else ok = false;
      });
      return ok ? { ok: true, value: out } : { ok: false };
    }
    case 'map': {
      if (!isPlainObject(raw)) return fail('type', 'expected an object of key/value pairs');
      const out: Record<string, unknown> = {};
      let ok = true;
      for (const [k, v] of Object.entries(raw)) {
        const c = checkType(type.values, v, `${path}.${k}`, errors, warnings);
        if (c.ok) out[k] = c.value;
        else ok = false;
      }
      return ok ? { ok: true, value: out } : { ok: false };
    }
    case 'object': {
      const r = validateObject(type.def, raw, path);
      errors.push(...r.errors);
      warnings.push(...r.warnings);
      if (r.errors.length > 0) return { ok: false };
      // Unknown keys of nested objects travel with the object's extra so nothing is dropped.
      return { ok: true, value: Object.keys(r.unknown).length > 0 ? { ...r.value, __extra: r.unknown } : r.value };
    }
  }
  return fail('type', 'unsupported type');
}
