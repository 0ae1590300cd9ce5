import { formatDateTime64 } from '@evp/clickhouse';
import type { Window } from '../definition';
import { parseDuration, parseTimestamp } from '../language/time';
import { NOW, type Params } from './params';

/**
 * Windows in SQL, computed from the `now` parameter inside the query (one compiled query serves every
 * evaluation). Relative: [now − duration, now], both ends included; calendar months are subtracted
 * first (month ends clamp), then the fixed part in milliseconds (language/time.ts). Absolute:
 * [from, to), from included, to excluded.
 */

function parsed<T>(v: T | string, what: string): T {
  if (typeof v === 'string') throw new Error(`${what} was not validated: ${v}`);
  return v;
}

/** now − duration, as SQL. */
export function backFromNow(duration: string, params: Params): string {
  const d = parsed(parseDuration(duration), 'duration');
  let sql = NOW;
  if (d.months > 0) sql = `subtractMonths(${sql}, ${params.add(d.months, 'UInt32')})`;
  if (d.millis > 0) sql = `subtractMilliseconds(${sql}, ${params.add(d.millis, 'UInt64')})`;
  return sql;
}

const instant = (text: string, params: Params): string => params.add(formatDateTime64(parsed(parseTimestamp(text), 'timestamp')), "DateTime64(3, 'UTC')");

/** SQL true when `time` (DateTime64, possibly NULL: then NULL) lies in the window. */
export function inWindow(time: string, window: Window, params: Params): string {
  if (typeof window === 'string') return `${time} >= ${backFromNow(window, params)} AND ${time} <= ${NOW}`;
  return `${time} >= ${instant(window.from, params)} AND ${time} < ${instant(window.to, params)}`;
}

/** The first instant of a window, as SQL. */
function windowStart(window: Window, params: Params): string {
  return typeof window === 'string' ? backFromNow(window, params) : instant(window.from, params);
}

/** The last instant of a window (relative: now; absolute: `to`, itself excluded), as SQL. */
function windowEnd(window: Window, params: Params): string {
  return typeof window === 'string' ? NOW : instant(window.to, params);
}

const extreme = (fn: 'least' | 'greatest', xs: string[]): string => {
  const distinct = [...new Set(xs)];
  return distinct.length === 1 ? (distinct[0] as string) : `${fn}(${distinct.join(', ')})`;
};

/**
 * SQL true for a `time` inside at least the union of the windows' spans — [earliest start, latest
 * end] — or undefined when a window is missing (all history: nothing can be left out). Every
 * instant is a constant of the query, so the sorting key's day and the monthly partitions skip
 * whatever lies outside.
 */
export function timeSpan(windows: readonly (Window | undefined)[], params: Params, opts: { end: boolean }): string | undefined {
  if (windows.length === 0 || windows.some((w) => w === undefined)) return undefined;
  const ws = windows as Window[];
  const start = `time >= ${extreme(
    'least',
    ws.map((w) => windowStart(w, params)),
  )}`;
  return opts.end
    ? `${start} AND time <= ${extreme(
        'greatest',
        ws.map((w) => windowEnd(w, params)),
      )}`
    : start;
}
