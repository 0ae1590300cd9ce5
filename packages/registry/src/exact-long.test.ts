import { Type } from 'avsc';
import { parseAvroSchema } from './avro-schema';

/** Reference Avro long encoding (zig-zag + varint) done in BigInt, independent of avsc. */
function avroLong(n: bigint): Buffer {
  let z = n >= 0n ? n << 1n : (-n << 1n) - 1n;
  const bytes: number[] = [];
  do {
    let byte = Number(z & 0x7fn);
    z >>= 7n;
    if (z > 0n) byte |= 0x80;
    bytes.push(byte);
  } while (z > 0n);
  return Buffer.from(bytes);
}

describe('exact long', () => {
  const long = parseAvroSchema('"long"');
  const boundaries = [0, 1, -1, 63, -64, 2 ** 31, -(2 ** 31) - 1, 2 ** 52, -(2 ** 52), -(2 ** 52) - 1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER];

  it.each(boundaries)('encodes %d as standard Avro and decodes it exactly', (n) => {
    expect(long.toBuffer(n).equals(avroLong(BigInt(n)))).toBe(true);
    expect(long.fromBuffer(avroLong(BigInt(n)))).toBe(n);
  });

  it('fixes what plain avsc gets wrong: negative longs below -2^52', () => {
    const n = -(2 ** 52) - 1;
    expect(Type.forSchema('long').fromBuffer(Type.forSchema('long').toBuffer(n))).not.toBe(n);
    expect(long.fromBuffer(long.toBuffer(n))).toBe(n);
  });

  it('refuses values a JS number cannot hold instead of rounding them', () => {
    expect(long.isValid(2 ** 53)).toBe(false);
    expect(long.isValid(1.5)).toBe(false);
    expect(() => long.fromBuffer(avroLong(2n ** 60n))).toThrow(/does not fit a JavaScript number/);
  });

  it('applies inside records and still resolves int → long and long → double', () => {
    const record = (type: string) => parseAvroSchema({ type: 'record', name: 'R', fields: [{ name: 'n', type }] });
    const [int, long, double] = [record('int'), record('long'), record('double')];
    expect(long.fromBuffer(int.toBuffer({ n: -5 }), long.createResolver(int))).toEqual({ n: -5 });
    expect(double.fromBuffer(long.toBuffer({ n: -(2 ** 40) }), double.createResolver(long))).toEqual({ n: -(2 ** 40) });
  });

  it('writes the same bytes as the BigInt path for safe integers of every magnitude, and reads them back', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const edges = [2 ** 29, 2 ** 30, 2 ** 31, 2 ** 35, 2 ** 42, 2 ** 49, 2 ** 52, Number.MAX_SAFE_INTEGER].flatMap((e) => [
      e - 1,
      e,
      e + 1,
      -e + 1,
      -e,
      -e - 1,
    ]);
    const values = [...edges.filter((e) => Number.isSafeInteger(e))];
    for (let i = 0; i < 2000; i++) {
      const magnitude = Math.floor(next() * 2 ** Math.floor(next() * 54));
      values.push(Math.min(magnitude, Number.MAX_SAFE_INTEGER) * (next() < 0.5 ? -1 : 1));
    }
    for (const n of values) {
      const bytes = avroLong(BigInt(n));
      expect(long.toBuffer(n).equals(bytes)).toBe(true);
      expect(long.fromBuffer(bytes)).toBe(n === 0 ? 0 : n);
    }
  });

  it('reads longs just outside the safe range and over-long varints as the BigInt path does', () => {
    expect(() => long.fromBuffer(avroLong(2n ** 53n))).toThrow('long 9007199254740992 does not fit a JavaScript number exactly');
    expect(() => long.fromBuffer(avroLong(-(2n ** 53n)))).toThrow('long -9007199254740992 does not fit a JavaScript number exactly');
    // A 9-byte encoding of 1 (padded with continuation bytes) is still 1.
    expect(long.fromBuffer(Buffer.from([0x82, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]))).toBe(1);
    expect(() => long.fromBuffer(Buffer.from([0x82, 0x80]))).toThrow(/truncated/);
  });
});

describe('fast string writer', () => {
  const plain = Type.forSchema('string');
  const fast = parseAvroSchema('"string"');
  const record = parseAvroSchema({ type: 'record', name: 'S', fields: [{ name: 's', type: ['null', 'string'] }] });
  const plainRecord = Type.forSchema({ type: 'record', name: 'S', fields: [{ name: 's', type: ['null', 'string'] }] });
  const cases = ['', 'a', 'page_view', 'x'.repeat(63), 'y'.repeat(64), 'z'.repeat(300), 'café', 'a'.repeat(62) + 'é', '日本', '😀 emoji', '\u007f\u0080'];

  it.each(cases)('writes %j as avsc does and reads it back', (s) => {
    expect(fast.toBuffer(s).equals(plain.toBuffer(s))).toBe(true);
    expect(fast.fromBuffer(plain.toBuffer(s))).toBe(s);
    expect(record.toBuffer({ s }).equals(plainRecord.toBuffer({ s }))).toBe(true);
  });

  it('reports a too small buffer and refuses non-strings as avsc does', () => {
    const small = Buffer.alloc(4);
    expect(fast.encode('abcdefgh', small, 0)).toBe(plain.encode('abcdefgh', Buffer.alloc(4), 0));
    expect(() => fast.toBuffer(5)).toThrow('invalid "string": 5');
  });
});
