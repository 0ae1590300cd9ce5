import { Type } from 'avsc';
import { parseAvroSchema } from './avro-schema';

/** Reference Avro long encoding (zig-zag + varint) done in BigInt, independent of avsc. */
function avroLong(n: bigint): Buffer {
  let z = n >= 0n ? n << 1n : ((-n) << 1n) - 1n;
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
});
