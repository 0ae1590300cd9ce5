import { formatDateTime64 } from './time';
import { stringifyWellFormed } from './well-formed';

/**
 * RowBinary (ClickHouse's binary row format): each row is its values one after another, each as its
 * column type lays it out (little-endian numbers, strings and arrays behind a LEB128 length,
 * Nullable behind a null flag). What the engine reads cheapest: nothing to parse or escape
 * (issue 28). JSON columns are written as their text (a String) and read with
 * `input_format_binary_read_json_as_string` (analytics.ts sends it with every insert).
 */

/** A value a column's type cannot hold; the caller says which column (the sink rejects the row). */
export class RowBinaryValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RowBinaryValueError';
  }
}

const CHUNK_BYTES = 1 << 20;
const TWO_32 = 4294967296;

/**
 * Writes RowBinary rows into large chunks and hands each row out as a view of its bytes (`row()`),
 * so rows written one at a time (as their messages are read) cost no allocation each; an insert
 * joins its rows with one `Buffer.concat`. A row never spans two chunks: one that does not fit is
 * moved to a fresh chunk, and earlier rows keep their views of the old one.
 */
export class RowBinaryWriter {
  private buf = Buffer.allocUnsafe(CHUNK_BYTES);
  private pos = 0;
  private start = 0;

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const partial = this.pos - this.start;
    const next = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, 2 * (partial + n)));
    this.buf.copy(next, 0, this.start, this.pos);
    this.buf = next;
    this.start = 0;
    this.pos = partial;
  }

  /** The bytes written since the last row ended: one row. */
  row(): Buffer {
    const out = this.buf.subarray(this.start, this.pos);
    this.start = this.pos;
    return out;
  }

  /**
   * `row` (the row just returned by row()) with a UInt16 after it: a value known only once the row
   * is read (the sink's retention stamp). Written in place, in the same chunk, when the row is the
   * last one and there is room (the usual case: no copy); else a copy of the row with it.
   */
  withUInt16(row: Buffer, value: number): Buffer {
    const end = row.byteOffset + row.length;
    if (this.pos === this.start && row.buffer === this.buf.buffer && end === this.buf.byteOffset + this.pos && this.pos + 2 <= this.buf.length) {
      this.buf.writeUInt16LE(value, this.pos);
      this.pos += 2;
      this.start = this.pos;
      return this.buf.subarray(this.pos - 2 - row.length, this.pos);
    }
    const out = Buffer.allocUnsafe(row.length + 2);
    row.copy(out);
    out.writeUInt16LE(value, row.length);
    return out;
  }

  /** Forgets the bytes of a row left half written (one of its values was refused). */
  discardRow(): void {
    this.pos = this.start;
  }

  uvarint(n: number): void {
    this.room(10);
    while (n >= 0x80) {
      this.buf[this.pos++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[this.pos++] = n;
  }

  /** A String: its UTF-8 byte length, then the bytes (a lone surrogate becomes U+FFFD, as in JSON rows). */
  string(s: string): void {
    const n = s.length;
    // At most 3 bytes per UTF-16 unit: under 43 units the length fits one byte, written after the text.
    if (n < 43) {
      this.room(1 + 3 * n);
      const buf = this.buf;
      const at = this.pos + 1;
      // ASCII (ids, names, versions: most strings here) is copied by hand: cheaper than a call
      // into Buffer#write for short text. The first other character hands the string to it.
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[at + i] = c;
      }
      const bytes = i === n ? n : buf.write(s, at);
      this.buf[this.pos] = bytes;
      this.pos += 1 + bytes;
      return;
    }
    const bytes = Buffer.byteLength(s);
    this.uvarint(bytes);
    this.room(bytes);
    this.pos += this.buf.write(s, this.pos);
  }

  /** Bytes as they are (a String's bytes after its length, copied from another buffer). */
  bytes(src: Buffer, start: number, end: number): void {
    const n = end - start;
    this.room(n);
    const buf = this.buf;
    // Short runs by hand: cheaper than a native copy call.
    if (n < 64) for (let i = 0; i < n; i++) buf[this.pos + i] = src[start + i] as number;
    else src.copy(buf, this.pos, start, end);
    this.pos += n;
  }

  u8(n: number): void {
    this.room(1);
    this.buf[this.pos++] = n;
  }

  i8(n: number): void {
    this.room(1);
    this.pos = this.buf.writeInt8(n, this.pos);
  }

  u16(n: number): void {
    this.room(2);
    this.pos = this.buf.writeUInt16LE(n, this.pos);
  }

  i16(n: number): void {
    this.room(2);
    this.pos = this.buf.writeInt16LE(n, this.pos);
  }

  u32(n: number): void {
    this.room(4);
    this.pos = this.buf.writeUInt32LE(n, this.pos);
  }

  i32(n: number): void {
    this.room(4);
    this.pos = this.buf.writeInt32LE(n, this.pos);
  }

  /** A 64-bit integer from a safe JS integer (DateTime64(3) is its milliseconds), without BigInt. */
  i64(n: number): void {
    this.room(8);
    const hi = Math.floor(n / TWO_32);
    this.buf.writeUInt32LE(n - hi * TWO_32, this.pos);
    this.buf.writeInt32LE(hi, this.pos + 4);
    this.pos += 8;
  }

  f64(n: number): void {
    this.room(8);
    this.pos = this.buf.writeDoubleLE(n, this.pos);
  }
}

/** Writes one value of a column type. */
export type RowBinaryEncode = (w: RowBinaryWriter, value: unknown) => void;

/** A ClickHouse type, parsed: its name and arguments (a named tuple element keeps its name). */
interface TypeNode {
  name: string;
  args: (TypeNode | { literal: string })[];
  /** A tuple element's name (`path String`). */
  field?: string;
}

function parseType(text: string): TypeNode {
  let i = 0;
  const space = () => {
    while (text[i] === ' ') i++;
  };
  const word = () => {
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
    if (!m) throw new Error(`cannot read ClickHouse type ${text} at ${i}`);
    i += m[0].length;
    return m[0];
  };
  const literal = (): { literal: string } => {
    const from = i;
    if (text[i] === "'") {
      i++;
      while (i < text.length && text[i] !== "'") i += text[i] === '\\' ? 2 : 1;
      i++;
    }
    while (i < text.length && text[i] !== ',' && text[i] !== ')') i++;
    return { literal: text.slice(from, i).trim() };
  };
  const node = (): TypeNode => {
    space();
    let name = word();
    space();
    let field: string | undefined;
    // `name Type` inside a Tuple: the first word was the element's name.
    if (/[A-Za-z_]/.test(text[i] ?? '')) {
      field = name;
      name = word();
      space();
    }
    const args: TypeNode['args'] = [];
    if (text[i] === '(') {
      i++;
      for (;;) {
        space();
        args.push(/[A-Za-z_]/.test(text[i] ?? '') ? node() : literal());
        space();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] !== ')') throw new Error(`cannot read ClickHouse type ${text} at ${i}`);
        i++;
        space();
        break;
      }
    }
    return field === undefined ? { name, args } : { name, args, field };
  };
  const t = node();
  if (i !== text.length) throw new Error(`cannot read ClickHouse type ${text}: text after the type`);
  return t;
}

const refuse = (what: string, v: unknown): never => {
  throw new RowBinaryValueError(`${what}, got ${typeof v === 'string' ? JSON.stringify(v) : String(v)}`);
};

function integer(min: number, max: number, write: (w: RowBinaryWriter, n: number) => void, type: string): RowBinaryEncode {
  return (w, v) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) refuse(`expected a ${type}`, v);
    write(w, v as number);
  };
}

const INTEGERS: Record<string, RowBinaryEncode> = {
  UInt8: integer(0, 0xff, (w, n) => w.u8(n), 'UInt8'),
  Int8: integer(-0x80, 0x7f, (w, n) => w.i8(n), 'Int8'),
  UInt16: integer(0, 0xffff, (w, n) => w.u16(n), 'UInt16'),
  Int16: integer(-0x8000, 0x7fff, (w, n) => w.i16(n), 'Int16'),
  UInt32: integer(0, 0xffffffff, (w, n) => w.u32(n), 'UInt32'),
  Int32: integer(-0x80000000, 0x7fffffff, (w, n) => w.i32(n), 'Int32'),
  // JS numbers: exact up to 2^53, which is all the platform writes.
  UInt64: integer(0, Number.MAX_SAFE_INTEGER, (w, n) => w.i64(n), 'UInt64'),
  Int64: integer(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, (w, n) => w.i64(n), 'Int64'),
};

const stringEncode: RowBinaryEncode = (w, v) => {
  if (typeof v !== 'string') refuse('expected a string', v);
  w.string(v as string);
};

/** An Enum8's `'symbol' = code` arguments, in order (one reading for the writer and the reader). */
function enumValues(t: TypeNode, text: string): [string, number][] {
  return t.args.map((a) => {
    const m = 'literal' in a ? /^'((?:[^'\\]|\\.)*)'\s*=\s*(-?\d+)$/.exec(a.literal) : null;
    if (!m) throw new Error(`ClickHouse type ${text}: cannot read an Enum8 value`);
    return [(m[1] as string).replace(/\\(.)/g, '$1'), Number(m[2])];
  });
}

function encoderOf(t: TypeNode, text: string): RowBinaryEncode {
  const arg = (n: number): TypeNode => {
    const a = t.args[n];
    if (a === undefined || 'literal' in a) throw new Error(`ClickHouse type ${text}: ${t.name} needs a type argument`);
    return a;
  };
  const int = INTEGERS[t.name];
  if (int) return int;
  switch (t.name) {
    case 'String':
      return stringEncode;
    case 'LowCardinality':
      // RowBinary writes a LowCardinality(T) as a T.
      return encoderOf(arg(0), text);
    case 'Nullable': {
      const inner = encoderOf(arg(0), text);
      return (w, v) => {
        if (v === null || v === undefined) w.u8(1);
        else {
          w.u8(0);
          inner(w, v);
        }
      };
    }
    case 'Bool':
      return (w, v) => {
        if (typeof v !== 'boolean') refuse('expected a boolean', v);
        w.u8(v ? 1 : 0);
      };
    case 'Float64':
      return (w, v) => {
        if (typeof v !== 'number') refuse('expected a number', v);
        w.f64(v as number);
      };
    case 'DateTime64': {
      const precision = t.args[0];
      if (!precision || !('literal' in precision) || precision.literal !== '3') throw new Error(`ClickHouse type ${text}: only DateTime64(3) is written`);
      // Epoch milliseconds, as an Int64.
      return INTEGERS.Int64 as RowBinaryEncode;
    }
    case 'Enum8': {
      const codes = new Map(enumValues(t, text));
      return (w, v) => {
        const code = codes.get(v as string);
        if (code === undefined) refuse(`expected one of ${[...codes.keys()].join(', ')}`, v);
        w.i8(code as number);
      };
    }
    case 'Array': {
      const item = encoderOf(arg(0), text);
      return (w, v) => {
        if (!Array.isArray(v)) refuse('expected an array', v);
        const items = v as unknown[];
        w.uvarint(items.length);
        for (let i = 0; i < items.length; i++) item(w, items[i]);
      };
    }
    case 'Tuple': {
      const elements = t.args.map((_, n) => ({ name: arg(n).field, encode: encoderOf(arg(n), text) }));
      // A named tuple takes an object (its elements by name), an unnamed one an array.
      return (w, v) => {
        if (v === null || typeof v !== 'object') refuse('expected a tuple', v);
        const byName = !Array.isArray(v);
        for (let i = 0; i < elements.length; i++) {
          const e = elements[i] as (typeof elements)[number];
          e.encode(w, byName && e.name !== undefined ? (v as Record<string, unknown>)[e.name] : (v as unknown[])[i]);
        }
      };
    }
    case 'Map': {
      const key = encoderOf(arg(0), text);
      const value = encoderOf(arg(1), text);
      return (w, v) => {
        if (v === null || typeof v !== 'object' || Array.isArray(v)) refuse('expected a map', v);
        const entries = Object.entries(v as object);
        w.uvarint(entries.length);
        for (const [k, x] of entries) {
          key(w, k);
          value(w, x);
        }
      };
    }
    case 'JSON':
      // Its text (read back as JSON with input_format_binary_read_json_as_string); an object is
      // written as its well-formed JSON text first.
      return (w, v) => {
        if (typeof v === 'string') w.string(v);
        else if (v !== null && typeof v === 'object' && !Array.isArray(v)) w.string(stringifyWellFormed(v));
        else refuse('expected a JSON object or its text', v);
      };
    default:
      throw new Error(`ClickHouse type ${text}: ${t.name} is not written as RowBinary here`);
  }
}

/**
 * The RowBinary writer of one column type, spelled as `system.columns` shows it. A value the type
 * cannot hold throws a RowBinaryValueError (leaving a half-written row: see `discardRow`).
 */
export function rowBinaryEncoder(type: string): RowBinaryEncode {
  return encoderOf(parseType(type), type);
}

/** Reads RowBinary values back (tests: what a writer wrote, as the JSON formats show it). */
class RowBinaryReader {
  pos = 0;
  constructor(readonly buf: Buffer) {}

  uvarint(): number {
    let n = 0;
    let scale = 1;
    for (;;) {
      const b = this.byte();
      n += (b & 0x7f) * scale;
      if (b < 0x80) return n;
      scale *= 128;
    }
  }

  byte(): number {
    if (this.pos >= this.buf.length) throw new RowBinaryValueError('RowBinary ends inside a value');
    return this.buf[this.pos++] as number;
  }

  take(n: number): Buffer {
    if (this.pos + n > this.buf.length) throw new RowBinaryValueError('RowBinary ends inside a value');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

type Decode = (r: RowBinaryReader) => unknown;

/** A 64-bit integer as i64 wrote it (exact within the safe integers). */
const readI64 = (b: Buffer): number => b.readInt32LE(4) * TWO_32 + b.readUInt32LE(0);

function decoderOf(t: TypeNode, text: string): Decode {
  const arg = (n: number) => t.args[n] as TypeNode;
  const fixed =
    (n: number, read: (b: Buffer) => unknown): Decode =>
    (r) =>
      read(r.take(n));
  switch (t.name) {
    case 'String':
      return (r) => r.take(r.uvarint()).toString('utf8');
    case 'JSON':
      return (r) => JSON.parse(r.take(r.uvarint()).toString('utf8')) as unknown;
    case 'LowCardinality':
      return decoderOf(arg(0), text);
    case 'Nullable': {
      const inner = decoderOf(arg(0), text);
      return (r) => (r.byte() === 1 ? null : inner(r));
    }
    case 'Bool':
      return (r) => r.byte() === 1;
    case 'UInt8':
      return (r) => r.byte();
    case 'Int8':
      return fixed(1, (b) => b.readInt8(0));
    case 'UInt16':
      return fixed(2, (b) => b.readUInt16LE(0));
    case 'Int16':
      return fixed(2, (b) => b.readInt16LE(0));
    case 'UInt32':
      return fixed(4, (b) => b.readUInt32LE(0));
    case 'Int32':
      return fixed(4, (b) => b.readInt32LE(0));
    case 'Int64':
    case 'UInt64':
      return fixed(8, readI64);
    case 'Float64':
      return fixed(8, (b) => b.readDoubleLE(0));
    case 'DateTime64':
      // As the JSON formats show it (YYYY-MM-DD hh:mm:ss.sss, UTC).
      return fixed(8, (b) => formatDateTime64(readI64(b)));
    case 'Enum8': {
      const symbols = new Map(enumValues(t, text).map(([symbol, code]) => [code, symbol]));
      return fixed(1, (b) => symbols.get(b.readInt8(0)) ?? refuse('no such Enum8 value', b.readInt8(0)));
    }
    case 'Array': {
      const item = decoderOf(arg(0), text);
      return (r) => Array.from({ length: r.uvarint() }, () => item(r));
    }
    case 'Tuple': {
      const elements = t.args.map((_, n) => ({ name: arg(n).field, decode: decoderOf(arg(n), text) }));
      const named = elements.every((e) => e.name !== undefined);
      return (r) => (named ? Object.fromEntries(elements.map((e) => [e.name, e.decode(r)])) : elements.map((e) => e.decode(r)));
    }
    case 'Map': {
      const key = decoderOf(arg(0), text);
      const value = decoderOf(arg(1), text);
      return (r) => Object.fromEntries(Array.from({ length: r.uvarint() }, () => [key(r), value(r)]));
    }
    default:
      throw new Error(`ClickHouse type ${text}: ${t.name} is not read here`);
  }
}

/**
 * Reads RowBinary rows of `types` back into value arrays, as the JSON formats show the values
 * (DateTime64 as its text, JSON parsed): tests compare what a writer wrote with the rows it stands for.
 */
export function readRowBinary(types: readonly string[], body: Buffer): unknown[][] {
  const decoders = types.map((t) => decoderOf(parseType(t), t));
  const r = new RowBinaryReader(body);
  const rows: unknown[][] = [];
  while (r.pos < body.length) rows.push(decoders.map((d) => d(r)));
  return rows;
}
