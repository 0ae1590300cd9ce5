import type { FieldType } from '@evp/schemas';
import { OPS, type Op } from '../definition';
import { enumValues, valueClass, type ValueClass } from './contract';
import { at, jsonType, LIMITS, type Reasons } from './rules';

/**
 * Which operators apply to which type. Numeric comparisons only on numbers (epoch-ms times are
 * numbers); `contains` is a substring on strings and an element on arrays; `exists` on anything.
 * A path through `[]` reads an array's elements: the operator applies to each (one must match).
 */
const OPS_BY_CLASS: Readonly<Record<ValueClass, readonly Op[]>> = {
  string: ['eq', 'neq', 'in', 'nin', 'contains', 'exists'],
  enum: ['eq', 'neq', 'in', 'nin', 'exists'],
  number: ['eq', 'neq', 'in', 'nin', 'gt', 'gte', 'lt', 'lte', 'exists'],
  boolean: ['eq', 'neq', 'exists'],
  array: ['contains', 'exists'],
  object: ['exists'],
  any: ['exists'],
};

const isOp = (v: unknown): v is Op => typeof v === 'string' && (OPS as readonly string[]).includes(v);

/** What is compared: the type read, whether through `[]`, and its name for messages. */
export interface Target {
  type: FieldType;
  many: boolean;
  label: string;
}

/**
 * Checks `op` and `value` (present or not) of a predicate, profile or aggregate condition (at `path`)
 * against the target's type; reasons are reported at `path.op` and `path.value`.
 */
export function checkOpValue(reasons: Reasons, path: string, node: Record<string, unknown>, target: Target): void {
  const op = node.op;
  if (op === undefined) return reasons.add(at(path, 'op'), 'required', `op is required: one of ${OPS.join(', ')}`);
  if (!isOp(op)) return reasons.add(at(path, 'op'), 'unknown_op', `${JSON.stringify(op)} is not an operator: one of ${OPS.join(', ')}`);
  const cls = valueClass(target.type);
  const allowed = OPS_BY_CLASS[cls];
  if (!allowed.includes(op) || (target.many && (cls === 'array' || cls === 'object' || cls === 'any'))) {
    const what = target.many && allowed.includes(op) ? `${target.label} reads ${cls} values through []` : `${target.label} is ${article(cls)}`;
    return reasons.add(at(path, 'op'), 'op_type', `${op} does not apply: ${what} (operators for it: ${allowed.join(', ')})`);
  }
  const valuePath = at(path, 'value');
  const hasValue = Object.hasOwn(node, 'value');
  if (op === 'exists') {
    if (hasValue) reasons.add(valuePath, 'exists_value', 'exists takes no value');
    return;
  }
  if (!hasValue) return reasons.add(valuePath, 'required', `${op} needs a value`);
  const value = node.value;
  if (op === 'in' || op === 'nin') {
    if (!Array.isArray(value)) return reasons.add(valuePath, 'value_type', `${op} needs an array of values, got ${jsonType(value)}`);
    if (value.length === 0) return reasons.add(valuePath, 'min_items', `${op} needs at least one value`);
    if (value.length > LIMITS.values) return reasons.add(valuePath, 'max_items', `${op} takes at most ${LIMITS.values} values`);
    value.forEach((v, i) => checkScalar(reasons, at(valuePath, i), v, target.type, target.label));
    return;
  }
  // contains on an array compares its elements.
  const type = cls === 'array' && target.type.kind === 'array' ? target.type.items : target.type;
  if (cls === 'array' && !['string', 'number', 'boolean', 'enum'].includes(valueClass(type))) {
    return reasons.add(at(path, 'op'), 'op_type', `contains does not apply: the elements of ${target.label} are ${article(valueClass(type))}`);
  }
  checkScalar(reasons, valuePath, value, type, target.label);
}

export function article(cls: ValueClass): string {
  return cls === 'array' || cls === 'object' ? `an ${cls}` : cls === 'any' ? 'any JSON value' : cls === 'enum' ? 'an enum' : `a ${cls}`;
}

/** One value against a scalar or enum type. */
export function checkScalar(reasons: Reasons, path: string, value: unknown, type: FieldType, label: string): void {
  const cls = valueClass(type);
  if (cls === 'string' || cls === 'enum') {
    if (typeof value !== 'string') return reasons.add(path, 'value_type', `${label} is ${article(cls)}: the value must be a string, got ${jsonType(value)}`);
    if (type.kind === 'enum' && !enumValues(type).includes(value)) {
      reasons.add(path, 'enum_value', `${JSON.stringify(value)} is not a value of ${label}: one of ${enumValues(type).join(', ')}`);
    }
  } else if (cls === 'number') {
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      reasons.add(path, 'value_type', `${label} is a number: the value must be a number, got ${jsonType(value)}`);
    }
  } else if (cls === 'boolean') {
    if (typeof value !== 'boolean') reasons.add(path, 'value_type', `${label} is a boolean: the value must be true or false, got ${jsonType(value)}`);
  }
}
