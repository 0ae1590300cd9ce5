/**
 * The deepest nesting of arrays and objects an event may have (the event object itself is level 1).
 * Deeper values would make the recursive work that follows (JSON.stringify for size, hashing,
 * encoding) overflow the stack; they are rejected before any of it runs (rule `max_depth`).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * The JSON path of the first value nested deeper than `limit` levels under `v`, or null. Iterative,
 * so it cannot itself overflow the stack however deep the input is.
 */
export function pathDeeperThan(v: unknown, limit: number, rootPath: string): string | null {
  const stack: { value: unknown; depth: number; path: string }[] = [{ value: v, depth: 1, path: rootPath }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { value, depth, path } = top;
    if (value === null || typeof value !== 'object') continue;
    if (depth > limit) return path;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], depth: depth + 1, path: `${path}[${i}]` });
    } else {
      for (const k of Object.keys(value)) stack.push({ value: (value as Record<string, unknown>)[k], depth: depth + 1, path: `${path}.${k}` });
    }
  }
  return null;
}
