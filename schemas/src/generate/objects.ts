import type { FieldType, ObjectDef } from '../dsl/types';

/** Every ObjectDef reachable from a field type, depth first, in definition order. */
function nestedObjects(type: FieldType, out: ObjectDef[] = []): ObjectDef[] {
  switch (type.kind) {
    case 'array':
      return nestedObjects(type.items, out);
    case 'map':
      return nestedObjects(type.values, out);
    case 'object':
      out.push(type.def);
      for (const f of Object.values(type.def.fields)) nestedObjects(f.type, out);
      return out;
    default:
      return out;
  }
}

export function objectsOf(def: ObjectDef): ObjectDef[] {
  const out: ObjectDef[] = [];
  for (const f of Object.values(def.fields)) nestedObjects(f.type, out);
  return out;
}

/** A short human spelling of a field type, used by the reference pages. */
export function typeLabel(type: FieldType): string {
  switch (type.kind) {
    case 'scalar':
      return type.scalar;
    case 'epochMs':
      return 'long (epoch ms)';
    case 'enum':
      return 'enum';
    case 'any':
      return 'any JSON';
    case 'array':
      return `array of ${typeLabel(type.items)}`;
    case 'map':
      return `map of ${typeLabel(type.values)}`;
    case 'object':
      return type.def.name;
  }
}
