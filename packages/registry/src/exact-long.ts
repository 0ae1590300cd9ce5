import { type Schema, type Type, types } from 'avsc';

const MIN = BigInt(Number.MIN_SAFE_INTEGER);
const MAX = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * avsc's default long zig-zags in floating point, so negative longs below -2^52 come back with the
 * wrong sign or value, silently. This long type goes through BigInt instead: every safe integer
 * round-trips exactly and a long that a JS number cannot hold fails loudly on decode.
 */
export const exactLongType: Type = types.LongType.__with({
  fromBuffer(buf: Buffer): number {
    const n = buf.readBigInt64LE(0);
    if (n < MIN || n > MAX) throw new Error(`long ${n} does not fit a JavaScript number exactly`);
    return Number(n);
  },
  toBuffer(n: number): Buffer {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(BigInt(n));
    return buf;
  },
  fromJSON: (n: unknown) => Number(n),
  toJSON: (n: number) => n,
  isValid: (n: unknown) => Number.isSafeInteger(n),
  compare: (a: number, b: number) => (a === b ? 0 : a < b ? -1 : 1),
});

/**
 * avsc options every parse in this code base uses (the Confluent client gets them too), so all
 * adapters read and write longs alike. Logical types registered by a caller keep precedence.
 */
export const AVRO_PARSE_OPTIONS = {
  typeHook(schema: Schema, opts: { logicalTypes?: Record<string, unknown> }): Type | undefined {
    if (schema === 'long') return exactLongType;
    if (typeof schema === 'object' && schema !== null && (schema as { type?: unknown }).type === 'long') {
      const logical = (schema as { logicalType?: unknown }).logicalType;
      if (typeof logical !== 'string' || !opts.logicalTypes?.[logical]) return exactLongType;
    }
    return undefined;
  },
};
