import type { FieldType, ObjectDef } from './types';

/**
 * Every object definition reachable from `roots` (the roots, their nested objects, theirs…), each
 * once, in first-visit order: depth first, fields in definition order. The generated prop checks
 * (schemas/generated/prop-checks.ts) find the definitions they need (rules, client values) by
 * their index in this list, computed the same way when they were generated and when they run.
 */
export function objectDefsOf(roots: readonly ObjectDef[]): ObjectDef[] {
  const out: ObjectDef[] = [];
  const seen = new Set<ObjectDef>();
  const visitType = (t: FieldType): void => {
    if (t.kind === 'object') visit(t.def);
    else if (t.kind === 'array') visitType(t.items);
    else if (t.kind === 'map') visitType(t.values);
  };
  const visit = (def: ObjectDef): void => {
    if (seen.has(def)) return;
    seen.add(def);
    out.push(def);
    for (const f of Object.values(def.fields)) visitType(f.type);
  };
  for (const r of roots) visit(r);
  return out;
}
