import { COUNT_OPS } from '../definition';
import { at, isObject, jsonType, type Reasons } from './rules';
import { parseDuration, parseTimestamp } from './time';

/** A duration back from now (`within`, `before`). */
export function checkDuration(reasons: Reasons<'type' | 'duration'>, path: string, value: unknown): void {
  if (typeof value !== 'string') return reasons.add(path, 'type', `must be an ISO 8601 duration string such as "P30D", got ${jsonType(value)}`);
  const d = parseDuration(value);
  if (typeof d === 'string') reasons.add(path, 'duration', d);
}

/** `within`: a duration back from now, or `{"from": RFC3339, "to": RFC3339}` with from < to. */
export function checkWindow(reasons: Reasons, path: string, value: unknown): void {
  if (typeof value === 'string') return checkDuration(reasons, path, value);
  if (!isObject(value)) {
    return reasons.add(path, 'type', `a window is a duration string ("P30D") or {"from": …, "to": …}, got ${jsonType(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (key !== 'from' && key !== 'to') reasons.add(at(path, key), 'unknown_key', `an absolute window has no key ${key} (its keys: from, to)`);
  }
  const [from, to] = (['from', 'to'] as const).map((key) => {
    const v = value[key];
    if (v === undefined) return reasons.add(at(path, key), 'required', `${key} is required`);
    if (typeof v !== 'string') return reasons.add(at(path, key), 'type', `${key} must be an RFC 3339 timestamp string, got ${jsonType(v)}`);
    const ms = parseTimestamp(v);
    if (typeof ms === 'string') return reasons.add(at(path, key), 'timestamp', ms);
    return ms;
  });
  if (typeof from === 'number' && typeof to === 'number' && from >= to) {
    reasons.add(at(path, 'to'), 'window_order', 'to must be after from (the window is [from, to): from included, to excluded)');
  }
}

/** `count`: exactly one of gte, lte, eq, gt, lt, with a non-negative integer. */
export function checkCount(reasons: Reasons, path: string, value: unknown): void {
  const expected = `exactly one of ${COUNT_OPS.join(', ')} with a non-negative integer, e.g. {"gte": 3}`;
  if (!isObject(value)) return reasons.add(path, 'count', `count must be an object: ${expected}`);
  const keys = Object.keys(value);
  if (keys.length !== 1) return reasons.add(path, 'count', `count has ${keys.length} keys: it takes ${expected}`);
  const key = keys[0] as string;
  if (!(COUNT_OPS as readonly string[]).includes(key)) return reasons.add(at(path, key), 'count', `${key} is not a count bound: ${expected}`);
  const n = value[key];
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    reasons.add(at(path, key), 'count', `the bound must be a non-negative integer, got ${typeof n === 'number' ? n : jsonType(n)}`);
  }
}
