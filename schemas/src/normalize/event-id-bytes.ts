import * as crypto from 'node:crypto';

/**
 * The event id's text (event-id.ts) written as its UTF-8 bytes into one reused buffer and hashed from
 * there: building the text as a JS string cost more than hashing it (every `+=` a cons string, the
 * whole tree flattened and then converted to UTF-8 by the hash). The bytes are exactly
 * `Buffer.from(text, 'utf8')` of the string form: the same sorted-key JSON, the same prefix, so the
 * ids are byte-identical (event-id.test.ts checks it against the string form and its reference).
 */
export class IdBytes {
  private buf = Buffer.allocUnsafeSlow(4096);
  private pos = 0;
  /** The envelope facts whose bytes start the buffer up to prefixEnd (0: none kept). */
  private lastApp = '';
  private lastUser = '';
  private lastSession = '';
  private prefixEnd = 0;

  /** SHA-256 hex of the text `appId␀userId␀sessionId␀name␀time␀{sorted JSON of content}`. */
  hashHex(appId: string, userId: string, sessionId: string, name: string, time: number, content: { property: unknown; props: unknown; meta: unknown }): string {
    // The prefix up to the name is the same for every event of an envelope: its bytes are kept.
    if (appId === this.lastApp && userId === this.lastUser && sessionId === this.lastSession && this.prefixEnd > 0) this.pos = this.prefixEnd;
    else {
      this.pos = 0;
      this.raw(appId);
      this.byte(0);
      this.raw(userId);
      this.byte(0);
      this.raw(sessionId);
      this.byte(0);
      this.lastApp = appId;
      this.lastUser = userId;
      this.lastSession = sessionId;
      this.prefixEnd = this.pos;
    }
    this.raw(name);
    this.byte(0);
    this.time(time);
    this.byte(0);
    // The content object's keys in sorted order (meta < property < props), undefined members left out,
    // as the generic object path would print them, without listing and sorting its keys.
    this.byte(0x7b); // {
    let first = true;
    if (content.meta !== undefined) {
      this.raw('"meta":');
      this.value(content.meta);
      first = false;
    }
    if (content.property !== undefined) {
      this.raw(first ? '"property":' : ',"property":');
      this.value(content.property);
      first = false;
    }
    if (content.props !== undefined) {
      this.raw(first ? '"props":' : ',"props":');
      this.value(content.props);
    }
    this.byte(0x7d); // }
    return hashBytes(this.buf.subarray(0, this.pos));
  }

  /** `${time}`: an epoch-ms integer's digits written directly (no number-to-string per event). */
  private time(t: number): void {
    if (!(Number.isSafeInteger(t) && t >= 0)) {
      this.raw(`${t}`);
      return;
    }
    this.room(16);
    // Two int32 halves: the digits above the last eight, then those eight (zero-padded when there are higher ones).
    const hi = Math.floor(t / 1e8);
    const lo = t - hi * 1e8;
    if (hi > 0) {
      this.digits(hi, 0);
      this.digits(lo, 8);
    } else this.digits(lo, 0);
  }

  /** The decimal digits of an int32 `n`, at least `width` of them. */
  private digits(n: number, width: number): void {
    let count = 1;
    for (let x = n; x >= 10; x = (x / 10) | 0) count++;
    if (count < width) count = width;
    const buf = this.buf;
    const end = this.pos + count;
    for (let i = end - 1; i >= this.pos; i--) {
      const q = (n / 10) | 0;
      buf[i] = 0x30 + (n - q * 10);
      n = q;
    }
    this.pos = end;
  }

  /** stableStringify(v), as bytes (same cases, same order). */
  private value(v: unknown): void {
    switch (typeof v) {
      case 'string':
        this.json(v);
        return;
      case 'number':
        this.raw(Number.isFinite(v) ? String(v) : 'null');
        return;
      case 'boolean':
        this.raw(v ? 'true' : 'false');
        return;
      case 'object':
        if (v === null) {
          this.raw('null');
          return;
        }
        break;
      default:
        // undefined, functions and symbols print as null; a bigint throws as JSON.stringify throws.
        this.raw(JSON.stringify(v) ?? 'null');
        return;
    }
    if (Array.isArray(v)) {
      this.byte(0x5b); // [
      for (let i = 0; i < v.length; i++) {
        if (i > 0) this.byte(0x2c);
        if (i in v) this.value(v[i]);
      }
      this.byte(0x5d);
      return;
    }
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    // The values in the keys' order, sorted along with them: one Object.values instead of a lookup by
    // a different name per key (a megamorphic keyed load each). Plain data has no getters whose order
    // of reading could matter; larger objects sort their keys alone.
    let values: unknown[] | undefined;
    if (keys.length <= 16) {
      values = Object.values(o);
      if (values.length === keys.length) sortTogether(keys, values);
      else values = undefined;
    }
    if (values === undefined) sortKeys(keys);
    this.byte(0x7b);
    let first = true;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      const x = values === undefined ? o[k] : values[i];
      if (x === undefined) continue;
      if (!first) this.byte(0x2c);
      first = false;
      this.json(k);
      this.byte(0x3a);
      this.value(x);
    }
    this.byte(0x7d);
  }

  /** JSON.stringify(s) as bytes: printable ASCII without `"` or `\` is its own JSON between quotes. */
  private json(s: string): void {
    const len = s.length;
    this.room(len + 2);
    const buf = this.buf;
    let pos = this.pos;
    buf[pos++] = 0x22;
    for (let i = 0; i < len; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) {
        this.raw(JSON.stringify(s));
        return;
      }
      buf[pos++] = c;
    }
    buf[pos++] = 0x22;
    this.pos = pos;
  }

  /** A string's UTF-8 bytes, as `Buffer.from(s, 'utf8')` writes them (a lone surrogate as U+FFFD). */
  private raw(s: string): void {
    const len = s.length;
    this.room(3 * len);
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < len; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        this.pos += buf.write(s, this.pos, 'utf8');
        return;
      }
      buf[pos++] = c;
    }
    this.pos = pos;
  }

  private byte(b: number): void {
    this.room(1);
    this.buf[this.pos++] = b;
  }

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = 2 * this.buf.length;
    while (size < this.pos + n) size *= 2;
    const grown = Buffer.allocUnsafeSlow(size);
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }
}

/**
 * UTF-16 code-unit order, the default sort order (keys are distinct strings, so comparing with `<`
 * orders them the same). Objects of events have a handful of keys: insertion sort avoids the default
 * comparator's string conversions; larger ones use the built-in sort.
 */
export function sortKeys(keys: string[]): string[] {
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i] as string;
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > k) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = k;
  }
  return keys;
}

/** sortKeys' insertion sort, carrying each key's value along. */
function sortTogether(keys: string[], values: unknown[]): void {
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i] as string;
    const x = values[i];
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > k) {
      keys[j + 1] = keys[j] as string;
      values[j + 1] = values[j];
      j--;
    }
    keys[j + 1] = k;
    values[j + 1] = x;
  }
}

/** One-shot SHA-256 (`crypto.hash`, Node ≥ 20.12) where Node has it: no Hash object per id. */
const oneShot = (crypto as { hash?: (algorithm: string, data: Uint8Array, encoding: 'hex') => string }).hash;
const hashBytes: (b: Uint8Array) => string =
  typeof oneShot === 'function' ? (b) => oneShot('sha256', b, 'hex') : (b) => crypto.createHash('sha256').update(b).digest('hex');
