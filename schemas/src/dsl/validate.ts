import type { RejectionReason } from '@evp/core';
import type { EnumClientValues, FieldDef, FieldType, ObjectDef } from './types';

export interface ValidationResult {
  /** The value with defaults applied and aliases normalised; unknown keys removed (see `unknown`). */
  value: Record<string, unknown>;
  errors: RejectionReason[];
  /** Keys the definition does not know, kept so they are never silently dropped. */
  unknown: Record<string, unknown>;
  warnings: RejectionReason[];
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Client keys are data, not code: `obj[k] = v` with k = `__proto__` would set the prototype and the
 * value would vanish, and `k in def.fields` is true for `constructor` or `toString` (inherited), which
 * would silently drop such a key instead of keeping it as an extra.
 */
const setOwn = (obj: Record<string, unknown>, k: string, v: unknown) =>
  Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });

/**
 * Validation runs once per event on the validator's hot path, so each definition is compiled once
 * into checker closures (spellings, messages, enum sets resolved up front) instead of interpreting
 * the definition per value (definitions are constants: one is never changed once used). Paths are
 * built only when something is reported. The results (values, key order, errors, warnings and their
 * order) are those of the straightforward interpreter.
 *
 * A checker returns the checked value, or FAIL after pushing its errors. Its path is `base + suffix`,
 * kept apart so that a field's `.name` suffix is a constant and the concatenation happens on demand.
 */
const FAIL: unique symbol = Symbol('invalid');
/** Returned by a checker for a value that stands for "unset" (a client's `""` enum): treated as absent. */
const ABSENT: unique symbol = Symbol('absent');
type Checker = (raw: unknown, base: string, suffix: string, errors: RejectionReason[], warnings: RejectionReason[]) => unknown;

interface CompiledField {
  name: string;
  /** `.name`, the field's path suffix. */
  suffix: string;
  /** The name first, then the aliases: the first present spelling wins. */
  spellings: readonly string[];
  /** Real clients' own names (FieldDef.clientAliases), read only when no spelling above is present. */
  clientAliases: readonly string[];
  field: FieldDef;
  check: Checker;
  /** min or max set: numbers are range-checked. */
  bounded: boolean;
}

interface CompiledObject {
  def: ObjectDef;
  fields: CompiledField[];
  /** Field names and aliases: any other own key of the input is unknown (kept as an extra). */
  known: Set<string>;
  typeMessage: string;
}

const compiledObjects = new WeakMap<ObjectDef, CompiledObject>();

function compileObject(def: ObjectDef): CompiledObject {
  const cached = compiledObjects.get(def);
  if (cached !== undefined) return cached;
  const compiled: CompiledObject = { def, fields: [], known: new Set(), typeMessage: `expected an object (${def.name})` };
  // Registered before the fields are compiled, so a definition that contains itself terminates.
  compiledObjects.set(def, compiled);
  for (const name of Object.keys(def.fields)) {
    const field = def.fields[name] as FieldDef;
    const spellings = [name, ...(field.aliases ?? [])];
    for (const s of spellings) compiled.known.add(s);
    compiled.fields.push({
      name,
      suffix: `.${name}`,
      spellings,
      clientAliases: field.clientAliases ?? [],
      field,
      check: compileType(field.type),
      bounded: field.min !== undefined || field.max !== undefined,
    });
  }
  return compiled;
}

export interface ValidateOptions {
  /**
   * The object comes from a server-side import (the flat form): its own fields marked
   * `importMayOmit` may be absent, with warning `missing_required` instead of error `required`.
   */
  serverImport?: boolean;
}

/** Validates an object against its definition. Never throws, whatever the input. */
export function validateObject(def: ObjectDef, input: unknown, path: string, options?: ValidateOptions): ValidationResult {
  const errors: RejectionReason[] = [];
  const warnings: RejectionReason[] = [];
  const r = runObject(compileObject(def), input, path, errors, warnings, options?.serverImport === true);
  return { value: r.value, errors, unknown: r.unknown, warnings };
}

/** Appends this object's errors and warnings to the given lists (nested objects share the parent's). */
function runObject(
  c: CompiledObject,
  input: unknown,
  path: string,
  errors: RejectionReason[],
  warnings: RejectionReason[],
  serverImport = false,
): { value: Record<string, unknown>; unknown: Record<string, unknown> } {
  const value: Record<string, unknown> = {};
  const unknown: Record<string, unknown> = {};
  if (!isPlainObject(input)) {
    errors.push({ path, rule: 'type', message: c.typeMessage });
    return { value, unknown };
  }
  const errorsBefore = errors.length;
  /** Client spellings read as a field (rare): not extras. */
  let readAliases: string[] | undefined;
  for (let i = 0; i < c.fields.length; i++) {
    const f = c.fields[i] as CompiledField;
    let raw: unknown = undefined;
    for (let s = 0; s < f.spellings.length; s++) {
      const k = f.spellings[s] as string;
      if (Object.hasOwn(input, k) && input[k] !== undefined) {
        raw = input[k];
        break;
      }
    }
    if ((raw === undefined || raw === null) && f.clientAliases.length > 0) {
      for (const k of f.clientAliases) {
        if (Object.hasOwn(input, k) && input[k] !== undefined && input[k] !== null) {
          raw = input[k];
          (readAliases ??= []).push(k);
          warnings.push({ path: `${path}.${k}`, rule: 'property_alias', message: `${k} is a client's name for ${f.name}; read as ${f.name}` });
          break;
        }
      }
    }
    const checked = raw === undefined || raw === null ? ABSENT : f.check(raw, path, f.suffix, errors, warnings);
    if (checked === ABSENT) {
      if (f.field.default !== undefined) value[f.name] = f.field.default;
      else if (f.field.required && serverImport && f.field.importMayOmit !== undefined) {
        warnings.push({ path: path + f.suffix, rule: 'missing_required', message: `${f.name} is absent; left unset: ${f.field.importMayOmit}` });
      } else if (f.field.required) errors.push({ path: path + f.suffix, rule: 'required', message: `${f.name} is required` });
      continue;
    }
    if (checked !== FAIL) {
      if (f.bounded) checkBounds(f.field, checked, path + f.suffix, errors);
      value[f.name] = checked;
    }
  }
  const keys = Object.keys(input);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    if (!c.known.has(k) && (readAliases === undefined || !readAliases.includes(k))) {
      setOwn(unknown, k, input[k]);
      warnings.push({ path: `${path}.${k}`, rule: 'unknown_property', message: `${k} is not part of ${c.def.name}; kept as extra` });
    }
  }
  if (errors.length === errorsBefore && c.def.rules !== undefined) {
    for (const rule of c.def.rules) {
      for (const p of rule(value)) (p.warning ? warnings : errors).push({ path: p.path ? `${path}.${p.path}` : path, rule: p.rule, message: p.message });
    }
  }
  return { value, unknown };
}

function checkBounds(field: FieldDef, v: unknown, path: string, errors: RejectionReason[]) {
  if (typeof v !== 'number') return;
  if (field.min !== undefined && v < field.min) errors.push({ path, rule: 'range', message: `must be ≥ ${field.min}` });
  if (field.max !== undefined && v > field.max) errors.push({ path, rule: 'range', message: `must be ≤ ${field.max}` });
}

/** A checker that accepts values passing `ok` as they are, and reports `rule`/`message` otherwise. */
function simple(ok: (raw: unknown) => boolean, rule: string, message: string): Checker {
  return (raw, base, suffix, errors) => {
    if (ok(raw)) return raw;
    errors.push({ path: base + suffix, rule, message });
    return FAIL;
  };
}

const isString = (raw: unknown) => typeof raw === 'string';
const isBoolean = (raw: unknown) => typeof raw === 'boolean';
const isInt32 = (raw: unknown) => Number.isInteger(raw) && Math.abs(raw as number) <= 2147483647;
const isFiniteNumber = (raw: unknown) => typeof raw === 'number' && Number.isFinite(raw);
const isEpochMs = (raw: unknown) => Number.isSafeInteger(raw) && (raw as number) >= 0;

function compileType(type: FieldType): Checker {
  switch (type.kind) {
    case 'scalar':
      switch (type.scalar) {
        case 'string':
          return simple(isString, 'type', 'expected a string');
        case 'boolean':
          return simple(isBoolean, 'type', 'expected a boolean');
        case 'int':
          return simple(isInt32, 'type', 'expected a 32-bit integer');
        case 'long':
          return simple(Number.isSafeInteger, 'type', 'expected an integer');
        case 'float':
        case 'double':
          return simple(isFiniteNumber, 'type', 'expected a number');
      }
      break;
    case 'epochMs':
      return simple(isEpochMs, 'type', 'expected epoch milliseconds (a non-negative integer)');
    case 'enum':
      return compileEnum(type.symbols, type.client);
    case 'any':
      return (raw) => raw;
    case 'array': {
      const items = compileType(type.items);
      return (raw, base, suffix, errors, warnings) => {
        const path = base + suffix;
        if (!Array.isArray(raw)) {
          errors.push({ path, rule: 'type', message: 'expected an array' });
          return FAIL;
        }
        const out: unknown[] = [];
        let ok = true;
        for (let i = 0; i < raw.length; i++) {
          if (!(i in raw)) continue; // holes are skipped, as forEach does
          const item: unknown = raw[i];
          if (item === null || item === undefined) {
            ok = false;
            errors.push({ path: `${path}[${i}]`, rule: 'type', message: 'array items may not be null' });
            continue;
          }
          const c = items(item, path, `[${i}]`, errors, warnings);
          if (c === FAIL) ok = false;
          else if (c !== ABSENT) out.push(c); // an unset item (warned) is left out
        }
        return ok ? out : FAIL;
      };
    }
    case 'map': {
      const values = compileType(type.values);
      return (raw, base, suffix, errors, warnings) => {
        const path = base + suffix;
        if (!isPlainObject(raw)) {
          errors.push({ path, rule: 'type', message: 'expected an object of key/value pairs' });
          return FAIL;
        }
        const out: Record<string, unknown> = {};
        let ok = true;
        for (const [k, v] of Object.entries(raw)) {
          const c = values(v, path, `.${k}`, errors, warnings);
          if (c === FAIL) ok = false;
          else if (c !== ABSENT) setOwn(out, k, c); // an unset value (warned) is left out
        }
        return ok ? out : FAIL;
      };
    }
    case 'object': {
      const def = type.def;
      return (raw, base, suffix, errors, warnings) => {
        const before = errors.length;
        const r = runObject(compileObject(def), raw, base + suffix, errors, warnings);
        if (errors.length > before) return FAIL;
        // Unknown keys of nested objects travel with the object's extra so nothing is dropped.
        return Object.keys(r.unknown).length > 0 ? { ...r.value, __extra: r.unknown } : r.value;
      };
    }
  }
  return simple(() => false, 'type', 'unsupported type');
}

/** A client's spelling of a symbol: case and camelCase folded to snake_case (`View`, `medicalEquipment`). */
const snakeCase = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/**
 * An enum: the spec's symbols, and what real clients send instead (docs/data-contract.md, "Real
 * clients"), each accepted with a named warning: `""` stands for unset (`empty_enum`: treated as
 * absent), a known client alias (`enum_alias`) or another case / camelCase spelling of a symbol
 * (`enum_spelling`) becomes the symbol, and a value a client's own enum has (`enum_extension`) is kept.
 */
function compileEnum(symbolList: readonly string[], client: EnumClientValues | undefined): Checker {
  const symbols = new Set<string>(symbolList);
  const aliases = new Map(Object.entries(client?.aliases ?? {}));
  const extensions = new Set(client?.extensions ?? []);
  const expected = `expected one of ${symbolList.join(', ')}`;
  return (raw, base, suffix, errors, warnings) => {
    if (typeof raw === 'string') {
      if (symbols.has(raw)) return raw;
      const warn = (rule: string, message: string) => warnings.push({ path: base + suffix, rule, message });
      if (raw.length === 0) {
        warn('empty_enum', 'an empty string stands for unset; treated as absent');
        return ABSENT;
      }
      const alias = aliases.get(raw);
      if (alias !== undefined) {
        warn('enum_alias', `${JSON.stringify(raw)} is a client spelling of ${alias}`);
        return alias;
      }
      if (extensions.has(raw)) {
        warn('enum_extension', `${JSON.stringify(raw)} is not in the spec's list (${symbolList.join(', ')}); kept as a value real clients send`);
        return raw;
      }
      const folded = snakeCase(raw);
      if (symbols.has(folded)) {
        warn('enum_spelling', `${JSON.stringify(raw)} read as ${folded}`);
        return folded;
      }
    }
    errors.push({ path: base + suffix, rule: 'enum', message: expected });
    return FAIL;
  };
}
