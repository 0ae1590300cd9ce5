import { type Schema, Type, types } from 'avsc';

const MIN = BigInt(Number.MIN_SAFE_INTEGER);
const MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** The part of avsc's (untyped) Tap the long reader and writer below touch. */
interface Tap {
  buf: Buffer;
  pos: number;
  isValid(): boolean;
}

/** avsc's abstract long type, i.e. what `LongType.__with` builds, with the internals used here. */
interface AbstractLong {
  _read(tap: Tap): number | undefined;
  _write(tap: Tap, n: unknown): void;
}

const methods = {
  fromBuffer: (buf: Buffer): number => {
    const n = buf.readBigInt64LE(0);
    if (n < MIN || n > MAX) throw new Error(`long ${n} does not fit a JavaScript number exactly`);
    return Number(n);
  },
  toBuffer: (n: number): Buffer => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(BigInt(n));
    return buf;
  },
  fromJSON: (n: unknown) => Number(n),
  toJSON: (n: number) => n,
  isValid: (n: unknown) => Number.isSafeInteger(n),
  compare: (a: number, b: number) => (a === b ? 0 : a < b ? -1 : 1),
};

/**
 * avsc's default long zig-zags in floating point, so negative longs below -2^52 come back with the
 * wrong sign or value, silently. This long type is exact instead: every safe integer round-trips
 * exactly and a long that a JS number cannot hold fails loudly on decode.
 *
 * The generic abstract-long path (8-byte BigInt buffer per value, packed and unpacked by avsc) is
 * exact but allocates twice per long, and longs are in every event. So `_write` and `_read` are
 * replaced by a zig-zag varint in plain number arithmetic, which is exact for safe integers: with
 * z = 2m + s (s the sign, m = n or -n - 1, itself a safe integer), the low 6 bits of m go into the
 * first byte beside s and the rest is m / 64 in 7-bit groups, all exact divisions by powers of two.
 * Bytes are the standard (minimal) Avro encoding, the same the BigInt path writes. A read that does
 * not come out as a safe integer rewinds and takes the BigInt path, so out-of-range and malformed
 * input fails (or truncates) exactly as before, with the same message.
 */
export const exactLongType: Type = buildExactLongType();

function buildExactLongType(): Type {
  // Built as LongType.__with builds it (same constructor, same method mapping), but left unfrozen
  // until the fast reader and writer are in place; __with freezes its result.
  const reference = types.LongType.__with(methods);
  const AbstractLongType = Object.getPrototypeOf(reference).constructor as new (noUnpack: boolean) => AbstractLong;
  const type = new AbstractLongType(false) as AbstractLong & Record<string, unknown>;
  type._toBuffer = methods.toBuffer;
  type._fromBuffer = methods.fromBuffer;
  type._fromJSON = methods.fromJSON;
  type._toJSON = methods.toJSON;
  type._isValid = methods.isValid;
  type.compare = methods.compare;
  const generic = Object.getPrototypeOf(type) as AbstractLong; // avsc's BigInt-buffer path
  type._write = function writeExactLong(tap: Tap, n: unknown): void {
    if (!Number.isSafeInteger(n)) {
      generic._write.call(this, tap, n); // throws avsc's invalid-value error, as before
      return;
    }
    writeSafeLong(tap, n as number);
  };
  type._read = function readExactLong(tap: Tap): number | undefined {
    const start = tap.pos;
    const n = readSafeLong(tap);
    if (!tap.isValid()) return undefined; // truncated input: avsc's tap reports it, as before
    if (n !== undefined) return n;
    tap.pos = start;
    return generic._read.call(this, tap);
  };
  return Object.freeze(type) as unknown as Type;
}

const TWO_POW_6 = 64;
const TWO_POW_7 = 128;
const TWO_POW_27 = 2 ** 27;

/**
 * Zig-zag varint of a safe integer (Number.isSafeInteger checked by the caller), at `tap.pos` of
 * `tap.buf`, moving `pos` on: also the generated event writers' long (@evp/schemas AvroOut).
 */
export function writeSafeLong(tap: Pick<Tap, 'buf' | 'pos'>, n: number): void {
  const buf = tap.buf;
  let pos = tap.pos;
  if (n >= -1073741824 && n < 1073741824) {
    // Fits 31 bits once zig-zagged: int arithmetic, as avsc's own writeLong.
    let z = n >= 0 ? n << 1 : (~n << 1) | 1;
    while (z > 0x7f) {
      buf[pos++] = (z & 0x7f) | 0x80;
      z >>>= 7;
    }
    buf[pos++] = z;
  } else {
    const neg = n < 0;
    const m = neg ? -n - 1 : n; // z = 2m + (neg ? 1 : 0), 2^30 ≤ m ≤ 2^53 - 1
    // z as two int parts, z = hi·2^28 + lo: two exact double operations, then int arithmetic only.
    let lo = (m % TWO_POW_27) * 2 + (neg ? 1 : 0);
    let hi = Math.floor(m / TWO_POW_27); // ≥ 8 (z ≥ 2^31): every byte of lo continues
    for (let i = 0; i < 4; i++) {
      buf[pos++] = (lo & 0x7f) | 0x80;
      lo >>>= 7;
    }
    while (hi > 0x7f) {
      buf[pos++] = (hi & 0x7f) | 0x80;
      hi >>>= 7;
    }
    buf[pos++] = hi;
  }
  // Writes past the end are dropped by the Buffer and the position still advances, as with avsc's
  // own writers: encode() then reports the missing room.
  tap.pos = pos;
}

/**
 * Zig-zag varint to a number, exact as long as the varint is at most 8 bytes (56 bits) and the
 * value safe; undefined otherwise (the caller then takes the BigInt path).
 */
function readSafeLong(tap: Tap): number | undefined {
  const buf = tap.buf;
  let pos = tap.pos;
  let b = buf[pos++]!;
  const neg = b & 1;
  let m = (b & 0x7f) >> 1;
  let scale = TWO_POW_6;
  let bytes = 1;
  while (b & 0x80) {
    if (bytes === 8) return undefined;
    b = buf[pos++]!;
    m += (b & 0x7f) * scale;
    scale *= TWO_POW_7;
    bytes++;
  }
  tap.pos = pos;
  // m < 2^55 is a sum of distinct powers of two, so rounding can only take it from above 2^53 - 1
  // to at least 2^53, never into the safe range.
  if (m > Number.MAX_SAFE_INTEGER || (neg && m === Number.MAX_SAFE_INTEGER)) return undefined;
  return neg ? -m - 1 : m;
}

/**
 * avsc's string writer measures every string with Buffer.byteLength, writes the length, then copies
 * it char by char; in the validator's Avro encode that was the largest single cost (events are
 * mostly short ASCII strings). This string type writes a short ASCII string in one pass (its length
 * fits the one-byte varint, its UTF-8 is its chars) and hands anything else to avsc's writer, so the
 * bytes are the same. Everything but `_write` is avsc's own string type, inherited.
 */
export const fastStringType: Type = buildFastStringType();

function buildFastStringType(): Type {
  const plain = Type.forSchema('string') as unknown as AvscStringType;
  const write = function writeString(this: AvscStringType, tap: Tap & { writeString(s: string): void }, s: unknown): void {
    if (typeof s !== 'string' || s.length > 63) {
      plain._write.call(this, tap, s); // long strings, and the invalid-value error, as avsc does them
      return;
    }
    const len = s.length;
    const buf = tap.buf;
    const start = tap.pos;
    let pos = start + 1; // zig-zag length 2·len < 128: one byte
    for (let i = 0; i < len; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        tap.writeString(s); // not ASCII: avsc writes it from the start again
        return;
      }
      buf[pos++] = c;
    }
    buf[start] = len << 1;
    // Past the end of the buffer the writes are dropped and the position still advances, as in
    // avsc's writer: encode() then reports the missing room.
    tap.pos = pos;
  };
  return Object.freeze(Object.create(plain, { _write: { value: write } })) as Type;
}

interface AvscStringType {
  _write(tap: Tap, s: unknown): void;
}

/**
 * avsc options every parse in this code base uses (the Confluent client gets them too), so all
 * adapters read and write longs alike. Logical types registered by a caller keep precedence.
 */
export const AVRO_PARSE_OPTIONS = {
  typeHook(schema: Schema, opts: { logicalTypes?: Record<string, unknown> }): Type | undefined {
    if (schema === 'long') return exactLongType;
    if (schema === 'string') return fastStringType;
    if (typeof schema === 'object' && schema !== null && (schema as { type?: unknown }).type === 'long') {
      const logical = (schema as { logicalType?: unknown }).logicalType;
      if (typeof logical !== 'string' || !opts.logicalTypes?.[logical]) return exactLongType;
    }
    return undefined;
  },
};
