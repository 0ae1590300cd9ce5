import type { Reason } from '../rules/registry';
import { omissionsToleratedFor } from './omissions';
import type { RuleProblem, ClientDefault, ClientOmission, EnumClientValues, FieldDef, FieldType, ObjectDef, RecognisedClient, UnsetValue } from './types';
import type { RuleName } from '../rules/registry';

export interface ValidationResult {
  /** The value with defaults applied and aliases normalised; unknown keys removed (see `unknown`). */
  value: Record<string, unknown>;
  reasons: Reason[];
  /** Keys the definition does not know, kept so they are never silently dropped. */
  unknown: Record<string, unknown>;
  warnings: Reason[];
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
 * built only when something is reported. The results (values, key order, reasons, warnings and their
 * order) are those of the straightforward interpreter.
 *
 * A checker returns the checked value, or FAIL after pushing its reasons. Its path is `base + suffix`,
 * kept apart so that a field's `.name` suffix is a constant and the concatenation happens on demand.
 */
const FAIL: unique symbol = Symbol('invalid');
/** Returned by a checker for a value that stands for "unset" (a client's `""` enum): treated as absent. */
const ABSENT: unique symbol = Symbol('absent');
type Checker = (raw: unknown, base: string, suffix: string, reasons: Reason[], warnings: Reason[]) => unknown;

interface CompiledField {
  name: string;
  /** `.name`, the field's path suffix. */
  suffix: string;
  /** The name first, then the aliases: the first present spelling wins. */
  spellings: readonly string[];
  field: FieldDef;
  check: Checker;
  /** min or max set: numbers are range-checked. */
  bounded: boolean;
  /** Real clients' deviations for this field (FieldDef.client), resolved up front; undefined when none. */
  client?: CompiledClient;
}

interface CompiledClient {
  aliases: readonly string[];
  /** Each path split into keys (`appointment.patient_id` → ['appointment', 'patient_id']). */
  movedFrom: readonly (readonly string[])[];
  unset?: UnsetValue;
  default?: ClientDefault;
  /** Which clients leave the field out (FieldClientValues.mayOmit); tolerated for the client the object tolerates. */
  mayOmit?: ClientOmission;
  stringify: boolean;
}

interface CompiledObject {
  def: ObjectDef;
  fields: CompiledField[];
  /** Field names and aliases: any other own key of the input is unknown (kept as an extra). */
  known: Set<string>;
  /**
   * Client spellings (FieldClientValues.aliases): a key read through one is consumed; one that is not
   * read (the spec spelling was present too) stays an unknown key, so nothing is dropped.
   */
  clientKeys: Set<string>;
  /** For a definition from toleratingOmissions: the client whose absent `mayOmit` fields are `required_missing` warnings. */
  omissionsOf: RecognisedClient | undefined;
  typeMessage: string;
}

const compiledObjects = new WeakMap<ObjectDef, CompiledObject>();

function compileObject(def: ObjectDef): CompiledObject {
  const cached = compiledObjects.get(def);
  if (cached !== undefined) return cached;
  const compiled: CompiledObject = {
    def,
    fields: [],
    known: new Set(),
    clientKeys: new Set(),
    omissionsOf: omissionsToleratedFor(def),
    typeMessage: `expected an object (${def.name})`,
  };
  // Registered before the fields are compiled, so a definition that contains itself terminates.
  compiledObjects.set(def, compiled);
  for (const name of Object.keys(def.fields)) {
    const field = def.fields[name] as FieldDef;
    const spellings = [name, ...(field.aliases ?? [])];
    for (const s of spellings) compiled.known.add(s);
    const c = field.client;
    for (const s of c?.aliases ?? []) compiled.clientKeys.add(s);
    compiled.fields.push({
      name,
      suffix: `.${name}`,
      spellings,
      field,
      check: compileType(field.type),
      bounded: field.min !== undefined || field.max !== undefined,
      client:
        c === undefined
          ? undefined
          : {
              aliases: c.aliases ?? [],
              movedFrom: (c.movedFrom ?? []).map((p) => p.split('.')),
              unset: c.unset,
              default: c.default,
              mayOmit: c.mayOmit,
              stringify: c.stringify === true,
            },
    });
  }
  return compiled;
}

/** Validates an object against its definition. Never throws, whatever the input. */
export function validateObject(def: ObjectDef, input: unknown, path: string): ValidationResult {
  const reasons: Reason[] = [];
  const warnings: Reason[] = [];
  const r = runObject(compileObject(def), input, path, reasons, warnings);
  return { value: r.value, reasons, unknown: r.unknown, warnings };
}

/** Appends this object's reasons and warnings to the given lists (nested objects share the parent's). */
function runObject(
  c: CompiledObject,
  input: unknown,
  path: string,
  reasons: Reason[],
  warnings: Reason[],
): { value: Record<string, unknown>; unknown: Record<string, unknown> } {
  const value: Record<string, unknown> = {};
  const unknown: Record<string, unknown> = {};
  if (!isPlainObject(input)) {
    reasons.push({ path, rule: 'type', message: c.typeMessage });
    return { value, unknown };
  }
  const reasonsBefore = reasons.length;
  const keys = Object.keys(input);
  // camelCase or upper-case spellings of known keys (`moduleId`, `ATC_anatomical_group`): looked for
  // only among keys the definition does not know, so ordinary input costs one set lookup per key.
  let folds: Map<string, string> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    if (c.known.has(k) || c.clientKeys.has(k)) continue;
    const folded = snakeCase(k);
    if (folded !== k && (c.known.has(folded) || c.clientKeys.has(folded)) && !Object.hasOwn(input, folded)) {
      folds ??= new Map();
      if (!folds.has(folded)) folds.set(folded, k);
    }
  }
  // Keys read through a client spelling: not unknown, so not extras.
  let consumed: Set<string> | undefined;
  // Fields sent but not valid, as sent: the cross-field rules still see them as present.
  let failed: Record<string, unknown> | undefined;
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
    if (raw === undefined && (f.client !== undefined || folds !== undefined)) {
      const found = clientSpelling(f, input, path, folds, warnings);
      if (found !== undefined) {
        raw = found.value;
        if (found.key !== undefined) (consumed ??= new Set()).add(found.key);
      }
    }
    if (f.client !== undefined && raw !== undefined && raw !== null) raw = clientValue(f, f.client, raw, path, warnings);
    let checked = raw === undefined || raw === null ? ABSENT : f.check(raw, path, f.suffix, reasons, warnings);
    if (checked === ABSENT && f.field.default === undefined && f.client?.default !== undefined) {
      const d = f.client.default.value(input);
      if (d !== undefined && d !== null) {
        warnings.push({
          path: path + f.suffix,
          rule: 'default_applied',
          message: `${f.name} is absent; defaulted to ${JSON.stringify(d)} (${f.client.default.doc})`,
        });
        checked = f.check(d, path, f.suffix, reasons, warnings);
      }
    }
    if (checked === ABSENT) {
      if (f.field.default !== undefined) value[f.name] = f.field.default;
      else if (f.field.required) {
        const omission = f.client?.mayOmit;
        if (c.omissionsOf !== undefined && omission !== undefined && omission.by.includes(c.omissionsOf)) {
          warnings.push({
            path: path + f.suffix,
            rule: 'required_missing',
            message: `${f.name} is required by the spec but ${omission.why}; accepted without it`,
          });
        } else reasons.push({ path: path + f.suffix, rule: 'required', message: `${f.name} is required` });
      }
      continue;
    }
    if (checked !== FAIL) {
      if (f.bounded) checkBounds(f.field, checked, path + f.suffix, reasons);
      value[f.name] = checked;
    } else (failed ??= {})[f.name] = raw;
  }
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    if (!c.known.has(k) && consumed?.has(k) !== true) {
      setOwn(unknown, k, input[k]);
      warnings.push({ path: `${path}.${k}`, rule: 'unknown_property', message: `${k} is not part of ${c.def.name}; kept as extra` });
    }
  }
  // The cross-field rules run even when a field failed, so one answer names every fault of the
  // object (a checkout's negative cart_price and its unknown currency). They see an invalid field as
  // sent, so it still counts as present, and a problem at a path already reported is not repeated.
  if (c.def.rules !== undefined) {
    const faulty = reasons.length > reasonsBefore;
    const input = failed === undefined ? value : { ...value, ...failed };
    for (const rule of c.def.rules) {
      for (const p of faulty ? ruleOnFaulty(rule, input) : rule(input)) {
        const at = p.path ? `${path}.${p.path}` : path;
        if (faulty && reportedAt(reasons, reasonsBefore, at, p.path === '')) continue;
        (p.warning ? warnings : reasons).push({ path: at, rule: p.rule, message: p.message });
      }
    }
  }
  return { value, unknown };
}

/** Whether an error from `from` on is at `at` (or, unless `exact`, inside it). */
function reportedAt(reasons: readonly Reason[], from: number, at: string, exact: boolean): boolean {
  for (let i = from; i < reasons.length; i++) {
    const p = (reasons[i] as Reason).path;
    if (p === at || (!exact && p.startsWith(at) && (p[at.length] === '.' || p[at.length] === '['))) return true;
  }
  return false;
}

/**
 * A rule run on an object with invalid fields (kept as sent): rules are written for valid values, so
 * one that throws on a value of another type has nothing to add to the reasons already reported.
 */
function ruleOnFaulty(rule: (v: Record<string, unknown>) => readonly RuleProblem[], input: Record<string, unknown>): readonly RuleProblem[] {
  try {
    return rule(input);
  } catch {
    return [];
  }
}

/**
 * A field absent under its spec spellings, found where real clients put it: under a client alias
 * (`property_alias`), as a camelCase or upper-case spelling (`property_spelling`), or at a nested path
 * (`property_moved`). Each is reported at the key as sent.
 */
function clientSpelling(
  f: CompiledField,
  input: Record<string, unknown>,
  path: string,
  folds: Map<string, string> | undefined,
  warnings: Reason[],
): { value: unknown; key?: string } | undefined {
  const cc = f.client;
  for (const k of cc?.aliases ?? []) {
    if (Object.hasOwn(input, k) && input[k] !== undefined) {
      warnings.push({ path: `${path}.${k}`, rule: 'property_alias', message: `${k} is a client name of ${f.name}; read as ${f.name}` });
      return { value: input[k], key: k };
    }
  }
  if (folds !== undefined) {
    for (const s of [...f.spellings, ...(cc?.aliases ?? [])]) {
      const k = folds.get(s);
      if (k !== undefined) {
        warnings.push({ path: `${path}.${k}`, rule: 'property_spelling', message: `${k} read as ${f.name}` });
        return { value: input[k], key: k };
      }
    }
  }
  for (const keys of cc?.movedFrom ?? []) {
    let v: unknown = input;
    for (const k of keys) v = isPlainObject(v) && Object.hasOwn(v, k) ? v[k] : undefined;
    if (v !== undefined && v !== null) {
      warnings.push({
        path: `${path}.${keys.join('.')}`,
        rule: 'property_moved',
        message: `${f.name} sent inside ${keys.slice(0, -1).join('.')}; read as ${f.name}`,
      });
      return { value: v };
    }
  }
  return undefined;
}

/** A present value as real clients send it: an "unset" marker becomes absent, a number or boolean for a string its text. */
function clientValue(f: CompiledField, cc: CompiledClient, raw: unknown, path: string, warnings: Reason[]): unknown {
  if (cc.unset?.is(raw)) {
    warnings.push({ path: path + f.suffix, rule: cc.unset.rule, message: `${JSON.stringify(raw)} stands for unset (${cc.unset.doc}); treated as absent` });
    return undefined;
  }
  if (cc.stringify && (typeof raw === 'number' || typeof raw === 'boolean')) {
    warnings.push({
      path: path + f.suffix,
      rule: 'type_coerced',
      message: `${JSON.stringify(raw)} sent for a string; kept as the text ${JSON.stringify(String(raw))}`,
    });
    return String(raw);
  }
  return raw;
}

function checkBounds(field: FieldDef, v: unknown, path: string, reasons: Reason[]) {
  if (typeof v !== 'number') return;
  if (field.min !== undefined && v < field.min) reasons.push({ path, rule: 'range', message: `must be ≥ ${field.min}` });
  if (field.max !== undefined && v > field.max) reasons.push({ path, rule: 'range', message: `must be ≤ ${field.max}` });
}

/** A checker that accepts values passing `ok` as they are, and reports `rule`/`message` otherwise. */
function simple(ok: (raw: unknown) => boolean, rule: RuleName, message: string): Checker {
  return (raw, base, suffix, reasons) => {
    if (ok(raw)) return raw;
    reasons.push({ path: base + suffix, rule, message });
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
      return (raw, base, suffix, reasons, warnings) => {
        const path = base + suffix;
        if (!Array.isArray(raw)) {
          reasons.push({ path, rule: 'type', message: 'expected an array' });
          return FAIL;
        }
        const out: unknown[] = [];
        let ok = true;
        for (let i = 0; i < raw.length; i++) {
          if (!(i in raw)) continue; // holes are skipped, as forEach does
          const item: unknown = raw[i];
          if (item === null || item === undefined) {
            ok = false;
            reasons.push({ path: `${path}[${i}]`, rule: 'type', message: 'array items may not be null' });
            continue;
          }
          const c = items(item, path, `[${i}]`, reasons, warnings);
          if (c === FAIL) ok = false;
          else if (c !== ABSENT) out.push(c); // an unset item (warned) is left out
        }
        return ok ? out : FAIL;
      };
    }
    case 'map': {
      const values = compileType(type.values);
      return (raw, base, suffix, reasons, warnings) => {
        const path = base + suffix;
        if (!isPlainObject(raw)) {
          reasons.push({ path, rule: 'type', message: 'expected an object of key/value pairs' });
          return FAIL;
        }
        const out: Record<string, unknown> = {};
        let ok = true;
        for (const [k, v] of Object.entries(raw)) {
          const c = values(v, path, `.${k}`, reasons, warnings);
          if (c === FAIL) ok = false;
          else if (c !== ABSENT) setOwn(out, k, c); // an unset value (warned) is left out
        }
        return ok ? out : FAIL;
      };
    }
    case 'object': {
      const def = type.def;
      return (raw, base, suffix, reasons, warnings) => {
        const before = reasons.length;
        const r = runObject(compileObject(def), raw, base + suffix, reasons, warnings);
        if (reasons.length > before) return FAIL;
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
  return (raw, base, suffix, reasons, warnings) => {
    if (typeof raw === 'string') {
      if (symbols.has(raw)) return raw;
      const warn = (rule: RuleName, message: string) => warnings.push({ path: base + suffix, rule, message });
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
    reasons.push({ path: base + suffix, rule: 'enum', message: expected });
    return FAIL;
  };
}
