import type { RejectionReason } from '@evp/core';
import type { FieldDef, FieldType, ObjectDef } from '../../dsl/types';
import { isObject } from '../fields';

/**
 * Required fields that a real client never sends are marked `clientOmits` in the definitions. For an
 * event recognised as that client's, the validator uses the definition with those fields optional
 * (built once per definition, nested objects included) and reports each one that is absent as
 * `client_never_sends`; everyone else is still held to `required`.
 */
const relaxed = new WeakMap<ObjectDef, ObjectDef>();

export function relaxedDef<T extends ObjectDef>(def: T): T {
  const cached = relaxed.get(def);
  if (cached !== undefined) return cached as T;
  if (!omitsAnything(def, new Set())) {
    relaxed.set(def, def);
    return def;
  }
  const copy = { ...def, fields: {} as Record<string, FieldDef> };
  // Registered before the fields are relaxed, so a definition that contains itself terminates.
  relaxed.set(def, copy);
  for (const [name, f] of Object.entries(def.fields)) {
    copy.fields[name] = { ...f, type: relaxType(f.type), required: f.required && f.clientOmits === undefined };
  }
  return copy;
}

function relaxType(type: FieldType): FieldType {
  switch (type.kind) {
    case 'object':
      return { kind: 'object', def: relaxedDef(type.def) };
    case 'array':
      return { kind: 'array', items: relaxType(type.items) };
    case 'map':
      return { kind: 'map', values: relaxType(type.values) };
    default:
      return type;
  }
}

function omitsAnything(def: ObjectDef, seen: Set<ObjectDef>): boolean {
  if (seen.has(def)) return false;
  seen.add(def);
  return Object.values(def.fields).some((f) => f.clientOmits !== undefined || typeOmits(f.type, seen));
}

function typeOmits(type: FieldType, seen: Set<ObjectDef>): boolean {
  if (type.kind === 'object') return omitsAnything(type.def, seen);
  if (type.kind === 'array') return typeOmits(type.items, seen);
  if (type.kind === 'map') return typeOmits(type.values, seen);
  return false;
}

/** One `client_never_sends` warning per `clientOmits` field absent from the validated value. */
export function omittedWarnings(def: ObjectDef, value: Record<string, unknown>, path: string): RejectionReason[] {
  const out: RejectionReason[] = [];
  walk(def, value, path, out);
  return out;
}

function walk(def: ObjectDef, value: Record<string, unknown>, path: string, out: RejectionReason[]) {
  for (const [name, f] of Object.entries(def.fields)) {
    const v = value[name];
    if (v === undefined || v === null) {
      if (f.clientOmits !== undefined && f.required) {
        out.push({ path: `${path}.${name}`, rule: 'client_never_sends', message: `${name} is required by the spec but ${f.clientOmits}; accepted without it` });
      }
      continue;
    }
    walkType(f.type, v, `${path}.${name}`, out);
  }
}

function walkType(type: FieldType, v: unknown, path: string, out: RejectionReason[]) {
  if (type.kind === 'object' && isObject(v)) walk(type.def, v, path, out);
  else if (type.kind === 'array' && Array.isArray(v)) v.forEach((item, i) => walkType(type.items, item, `${path}[${i}]`, out));
}
