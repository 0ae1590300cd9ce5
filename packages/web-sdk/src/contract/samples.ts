import type { FieldType, ObjectDef } from '@evp/schemas';

/**
 * A valid value for every field the web types require, derived from the contract definitions, with
 * the few values a field's rules need beyond its type (an ISO currency, a message body's text).
 */
const OVERRIDES: Record<string, Record<string, unknown>> = {
  cart: { currency: 'EUR' },
  checkout: { currency: 'EUR' },
  payment_method: { currency: 'EUR' },
  deferred_payment: { currency: 'EUR' },
  message: { type: 'text', body: { text: 'Is the pharmacy open on Sunday?' } },
};

function sample(t: FieldType, name: string): unknown {
  switch (t.kind) {
    case 'scalar':
      return t.scalar === 'string' ? `${name}-1` : t.scalar === 'boolean' ? true : 1;
    case 'epochMs':
      return 1_741_942_800_000;
    case 'enum':
      return t.symbols[0];
    case 'any':
      return 'x';
    case 'array':
      return [sample(t.items, name)];
    case 'map':
      return { k: sample(t.values, name) };
    case 'object':
      return sampleObject(t.def);
  }
}

/** Every field a web client must send (required, no platform default), each with a valid value. */
export function sampleObject(def: ObjectDef, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, f] of Object.entries(def.fields)) if (f.required && f.default === undefined) o[k] = sample(f.type, k);
  return { ...o, ...overrides };
}

export const sampleProps = (def: ObjectDef & { event: string }) => {
  const props = sampleObject(def, OVERRIDES[def.event]);
  // item_info is required exactly when the verification succeeded (the sample's is_successful is true).
  if (def.event === 'item_verification') {
    const info = def.fields.item_info;
    if (info?.type.kind === 'object') props.item_info = sampleObject(info.type.def);
  }
  return props;
};
