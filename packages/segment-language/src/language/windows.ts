import { COUNT_OPS } from '../definition';
import { at, isObject, jsonType, type Problems } from './rules';
import { parseDuration, parseTimestamp } from './time';

/** A duration back from now (`within`, `before`). */
export function checkDuration(problems: Problems<'type' | 'duration'>, path: string, value: unknown): void {
  if (typeof value !== 'string') return problems.add(path, 'type', `must be an ISO 8601 duration string such as "P30D", got ${jsonType(value)}`);
  const d = parseDuration(value);
  if (typeof d === 'string') problems.add(path, 'duration', d);
}

/** `within`: a duration back from now, or `{"from": RFC3339, "to": RFC3339}` with from < to. */
export function checkWindow(problems: Problems, path: string, value: unknown): void {
  if (typeof value === 'string') return checkDuration(problems, path, value);
  if (!isObject(value)) {
    return problems.add(path, 'type', `a window is a duration string ("P30D") or {"from": …, "to": …}, got ${jsonType(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (key !== 'from' && key !== 'to') problems.add(at(path, key), 'unknown_key', `an absolute window has no key ${key} (its keys: from, to)`);
  }
  const [from, to] = (['from', 'to'] as const).map((key) => {
    const v = value[key];
    if (v === undefined) return problems.add(at(path, key), 'required', `${key} is required`);
    if (typeof v !== 'string') return problems.add(at(path, key), 'type', `${key} must be an RFC 3339 timestamp string, got ${jsonType(v)}`);
    const ms = parseTimestamp(v);
    if (typeof ms === 'string') return problems.add(at(path, key), 'timestamp', ms);
    return ms;
  });
  if (typeof from === 'number' && typeof to === 'number' && from >= to) {
    problems.add(at(path, 'to'), 'window_order', 'to must be after from (the window is [from, to): from included, to excluded)');
  }
}

/** `count`: exactly one of gte, lte, eq, gt, lt, with a non-negative integer. */
export function checkCount(problems: Problems, path: string, value: unknown): void {
  const expected = `exactly one of ${COUNT_OPS.join(', ')} with a non-negative integer, e.g. {"gte": 3}`;
  if (!isObject(value)) return problems.add(path, 'count', `count must be an object: ${expected}`);
  const keys = Object.keys(value);
  if (keys.length !== 1) return problems.add(path, 'count', `count has ${keys.length} keys: it takes ${expected}`);
  const key = keys[0] as string;
  if (!(COUNT_OPS as readonly string[]).includes(key)) return problems.add(at(path, key), 'count', `${key} is not a count bound: ${expected}`);
  const n = value[key];
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    problems.add(at(path, key), 'count', `the bound must be a non-negative integer, got ${typeof n === 'number' ? n : jsonType(n)}`);
  }
}
