import { formatDateTime64 } from '@evp/clickhouse';
import type { RejectionReason } from '@evp/core';

// The checks row values pass: what ClickHouse would refuse (or store wrongly) becomes a RowError first.

/** A value the sink cannot turn into a row; the message becomes a rejected row instead. */
export class RowError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'RowError';
  }
}

// DateTime64's range. A time outside it would make ClickHouse refuse the whole insert (or clamp
// the value), and a refused insert would be retried forever: such a message is rejected instead.
export const MIN_TIME_MS = Date.UTC(1900, 0, 1);
export const MAX_TIME_MS = Date.UTC(2299, 11, 31, 23, 59, 59, 999);

/** An epoch-ms time DateTime64(3) holds (RowBinary writes it as is). */
export function epochMs(ms: unknown, path: string): number {
  if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < MIN_TIME_MS || ms > MAX_TIME_MS) {
    throw new RowError(path, `${String(ms)} is not an epoch-ms time between 1900 and 2299`);
  }
  return ms;
}

/** An epoch-ms time as DateTime64 text (JSON rows). */
export const chTime = (ms: unknown, path: string): string => formatDateTime64(epochMs(ms, path));

export const chTimeOrNull = (ms: unknown, path: string) => (ms === null || ms === undefined ? null : chTime(ms, path));

export function text(v: unknown, path: string): string {
  if (typeof v !== 'string') throw new RowError(path, `expected a string, got ${v === null ? 'null' : typeof v}`);
  return v;
}

export function nonEmpty(v: unknown, path: string): string {
  const s = text(v, path);
  if (s.length === 0) throw new RowError(path, 'must not be empty');
  return s;
}

/**
 * Why the UTF-8 bytes [start, end) are not one bounded JSON object ('' when they are): `{` first,
 * its brackets (outside strings) closing only at its last byte. The structural characters are
 * ASCII, so bytes and characters scan alike (the sink's events reader scans the Avro bytes,
 * objectText in record-columns.ts the text's).
 */
export function boundedObjectProblem(buf: Buffer, start: number, end: number): string {
  if (start >= end || buf[start] !== 0x7b) return 'expected a JSON object';
  let depth = 0;
  let inString = false;
  for (let i = start; i < end; i++) {
    const c = buf[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0 && i !== end - 1) return 'not JSON: text after the object';
    }
  }
  return depth !== 0 || inString ? 'not JSON: the object is not closed' : '';
}

/** `{path, rule, message}` lists (rejection errors, event warnings) as their Array(Tuple) column takes them. */
export function reasons(list: unknown, path: string): RejectionReason[] {
  if (!Array.isArray(list)) throw new RowError(path, 'expected an array');
  return (list as RejectionReason[]).map((e) => ({ path: e.path, rule: e.rule, message: e.message }));
}
