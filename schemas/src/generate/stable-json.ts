/**
 * JSON text that depends only on content: Avro's conventional keys first (so files read naturally),
 * every other key alphabetically, 2-space indent, trailing newline. Array order is kept — in Avro it
 * is meaningful (field order, union branch order).
 */
const KEY_ORDER = ['name', 'type', 'namespace', 'aliases', 'doc', 'logicalType', 'symbols', 'items', 'values', 'default', 'fields'];

const rank = (k: string) => {
  const i = KEY_ORDER.indexOf(k);
  return i === -1 ? KEY_ORDER.length : i;
};

function orderKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(orderKeys);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  entries.sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, orderKeys(v)]));
}

export const stableJson = (value: unknown): string => `${JSON.stringify(orderKeys(value), null, 2)}\n`;
