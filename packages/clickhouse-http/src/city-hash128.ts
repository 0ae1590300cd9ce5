/**
 * CityHash128 as of CityHash v1.0.2, the version ClickHouse froze for the checksum of its compressed
 * blocks (ClickHouse's contrib/cityhash102; later CityHash releases hash differently, so no current
 * CityHash package fits). No maintained Node package implements this version, so it is written here
 * from city.cc v1.0.2 (`CityHash128`, `CityHash128WithSeed`, `CityMurmur`), in 64-bit BigInt
 * arithmetic. Golden values from ClickHouse itself are in city-hash128.test.ts.
 */
const MASK = (1n << 64n) - 1n;
const k0 = 0xc3a5c85c97cb3127n;
const k1 = 0xb492b66fbe98f273n;
const k2 = 0x9ae16a3b2f90404fn;
const k3 = 0xc949d7c7509e6557n;
const kMul = 0x9ddfea08eb382d69n;

const add = (a: bigint, b: bigint) => (a + b) & MASK;
const mul = (a: bigint, b: bigint) => (a * b) & MASK;
const rotate = (v: bigint, s: number) => (s === 0 ? v : ((v >> BigInt(s)) | (v << BigInt(64 - s))) & MASK);
const shiftMix = (v: bigint) => v ^ (v >> 47n);

function hashLen16(u: bigint, v: bigint): bigint {
  let a = mul(u ^ v, kMul);
  a ^= a >> 47n;
  let b = mul(v ^ a, kMul);
  b ^= b >> 47n;
  return mul(b, kMul);
}

function hashLen0to16(s: Buffer, pos: number, len: number): bigint {
  if (len > 8) {
    const a = s.readBigUInt64LE(pos);
    const b = s.readBigUInt64LE(pos + len - 8);
    // v1.0.2's form (later versions changed it): HashLen16(a, RotateByAtLeast1(b + len, len)) ^ b.
    return hashLen16(a, rotate(add(b, BigInt(len)), len)) ^ b;
  }
  if (len >= 4) {
    const a = BigInt(s.readUInt32LE(pos));
    return hashLen16(add(a << 3n, BigInt(len)), BigInt(s.readUInt32LE(pos + len - 4)));
  }
  if (len > 0) {
    const y = BigInt((s[pos] as number) + ((s[pos + (len >>> 1)] as number) << 8));
    const z = BigInt(len + ((s[pos + len - 1] as number) << 2));
    return mul(shiftMix(mul(y, k2) ^ mul(z, k3)), k2);
  }
  return k2;
}

type Pair = [bigint, bigint];

function weakHashLen32WithSeeds(s: Buffer, pos: number, a0: bigint, b0: bigint): Pair {
  const w = s.readBigUInt64LE(pos);
  const x = s.readBigUInt64LE(pos + 8);
  const y = s.readBigUInt64LE(pos + 16);
  const z = s.readBigUInt64LE(pos + 24);
  let a = add(a0, w);
  let b = rotate(add(add(b0, a), z), 21);
  const c = a;
  a = add(add(a, x), y);
  b = add(b, rotate(a, 44));
  return [add(a, z), add(b, c)];
}

/** CityMurmur: CityHash128WithSeed for inputs shorter than 128 bytes. */
function cityMurmur(s: Buffer, pos: number, len: number, seed: Pair): Pair {
  let [a, b] = seed;
  let c: bigint;
  let d: bigint;
  let l = len - 16;
  if (l <= 0) {
    a = mul(shiftMix(mul(a, k1)), k1);
    c = add(mul(b, k1), hashLen0to16(s, pos, len));
    d = shiftMix(add(a, len >= 8 ? s.readBigUInt64LE(pos) : c));
  } else {
    c = hashLen16(add(s.readBigUInt64LE(pos + len - 8), k1), a);
    d = hashLen16(add(b, BigInt(len)), add(c, s.readBigUInt64LE(pos + len - 16)));
    a = add(a, d);
    do {
      a ^= mul(shiftMix(mul(s.readBigUInt64LE(pos), k1)), k1);
      a = mul(a, k1);
      b ^= a;
      c ^= mul(shiftMix(mul(s.readBigUInt64LE(pos + 8), k1)), k1);
      c = mul(c, k1);
      d ^= c;
      pos += 16;
      l -= 16;
    } while (l > 0);
  }
  a = hashLen16(a, c);
  b = hashLen16(d, b);
  return [a ^ b, hashLen16(b, a)];
}

function cityHash128WithSeed(s: Buffer, pos: number, len: number, seed: Pair): Pair {
  if (len < 128) return cityMurmur(s, pos, len, seed);
  let [x, y] = seed;
  let z = mul(BigInt(len), k1);
  let v: Pair = [0n, 0n];
  let w: Pair = [0n, 0n];
  v[0] = add(mul(rotate(y ^ k1, 49), k1), s.readBigUInt64LE(pos));
  v[1] = add(mul(rotate(v[0], 42), k1), s.readBigUInt64LE(pos + 8));
  w[0] = add(mul(rotate(add(y, z), 35), k1), x);
  w[1] = mul(rotate(add(x, s.readBigUInt64LE(pos + 88)), 53), k1);

  // The same 64-byte step as CityHash64's loop, twice per iteration as in city.cc.
  const step = () => {
    x = mul(rotate(add(add(add(x, y), v[0]), s.readBigUInt64LE(pos + 16)), 37), k1);
    y = mul(rotate(add(add(y, v[1]), s.readBigUInt64LE(pos + 48)), 42), k1);
    x ^= w[1];
    y ^= v[0];
    z = rotate(z ^ w[0], 33);
    v = weakHashLen32WithSeeds(s, pos, mul(v[1], k1), add(x, w[0]));
    w = weakHashLen32WithSeeds(s, pos + 32, add(z, w[1]), y);
    [z, x] = [x, z];
    pos += 64;
  };
  do {
    step();
    step();
    len -= 128;
  } while (len >= 128);

  y = add(y, add(mul(rotate(w[0], 37), k0), z));
  x = add(x, mul(rotate(add(v[0], z), 49), k0));
  // Up to four 32-byte chunks from the end of the input.
  for (let tailDone = 0; tailDone < len;) {
    tailDone += 32;
    y = add(mul(rotate((y - x) & MASK, 42), k0), v[1]);
    w[0] = add(w[0], s.readBigUInt64LE(pos + len - tailDone + 16));
    x = add(mul(rotate(x, 49), k0), w[0]);
    w[0] = add(w[0], v[0]);
    v = weakHashLen32WithSeeds(s, pos + len - tailDone, v[0], v[1]);
  }
  x = hashLen16(x, v[0]);
  y = hashLen16(y, w[0]);
  return [add(hashLen16(add(x, v[1]), w[1]), y), hashLen16(add(x, w[1]), add(y, v[1]))];
}

/** CityHash128 v1.0.2 of `s`: the pair (low 64 bits, high 64 bits) as city.cc's uint128 (first, second). */
export function cityHash128(s: Buffer): Pair {
  const len = s.length;
  if (len >= 16) return cityHash128WithSeed(s, 16, len - 16, [s.readBigUInt64LE(0) ^ k3, s.readBigUInt64LE(8)]);
  if (len >= 8) return cityHash128WithSeed(Buffer.alloc(0), 0, 0, [s.readBigUInt64LE(0) ^ mul(BigInt(len), k0), s.readBigUInt64LE(len - 8) ^ k1]);
  return cityHash128WithSeed(s, 0, len, [k0, k1]);
}
