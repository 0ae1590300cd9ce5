import type { FieldType, ObjectDef } from '../dsl/types';

/**
 * Props of a definition, made up from its types (every required field, each optional one half of the
 * time, an unknown property at the top now and then): what the generated code of an event type meets, for
 * every event type, not only those the corpus has cases of.
 */
export function madeUpProps(def: ObjectDef, rand: () => number, depth = 0): Record<string, unknown> {
  const value = (t: FieldType, d: number): unknown => {
    switch (t.kind) {
      case 'scalar':
        return { string: 'ab\u00e9', int: 7, long: 2 ** 40, float: 1.25, double: 0.5, boolean: true }[t.scalar];
      case 'epochMs':
        return 1_700_000_000_000;
      case 'enum':
        return t.symbols[Math.floor(rand() * t.symbols.length)];
      case 'any':
        return { a: [1, 'x'] };
      case 'array':
        return d > 3 ? [] : [value(t.items, d + 1), value(t.items, d + 1)];
      case 'map':
        return d > 3 ? {} : { k: value(t.values, d + 1), 'é k': value(t.values, d + 1) };
      case 'object':
        return madeUpProps(t.def, rand, d + 1);
    }
  };
  const out: Record<string, unknown> = {};
  // Currencies are checked against ISO 4217 (events/iso4217.ts): one every definition takes.
  for (const [k, f] of Object.entries(def.fields)) if (f.required || rand() < 0.5) out[k] = k === 'currency' ? 'USD' : value(f.type, depth);
  if (depth === 0 && rand() < 0.3) out.zz_unknown = { z: [1] };
  return out;
}
