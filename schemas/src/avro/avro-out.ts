import { writeSafeLong } from '@evp/registry';

/** Read once: run from sources (tsx), every use of an import is a getter call, and this runs per long. */
const writeLong = writeSafeLong;

/**
 * The growable buffer the generated event writers (schemas/generated/event-writers.ts) write Avro
 * into, byte for byte as avsc writes the same record with AVRO_PARSE_OPTIONS (@evp/registry's
 * exact long and fast string). A value its schema would refuse does not throw here: the write is
 * marked `invalid` and the caller encodes the event through avsc instead, which throws its own
 * error, so a defect fails exactly as it always has. avsc also writes into `buf` (the validator's
 * Framer shares it), so both paths frame into one buffer.
 */
export class AvroOut {
  buf: ReturnType<typeof Buffer.allocUnsafeSlow>;
  pos = 0;
  /** Set by a write whose value the schema refuses; the bytes since the caller's mark are then void. */
  invalid = false;
  /** Scratch for doubles (Buffer#writeDoubleLE checks its bounds per call). */
  private readonly f64 = new Float64Array(1);
  private readonly f64Bytes = new Uint8Array(this.f64.buffer);

  constructor(private readonly initialSize = 1 << 20) {
    this.buf = Buffer.allocUnsafeSlow(initialSize);
  }

  /** Room for `n` more bytes at `pos`, the bytes before it kept. */
  room(n: number): void {
    if (this.pos + n > this.buf.length) this.grow(this.pos + n);
  }

  grow(min: number): void {
    let size = 2 * this.buf.length;
    while (size < min) size *= 2;
    const grown = Buffer.allocUnsafeSlow(size);
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  /**
   * The buffer as it is, for the `used` bytes at its start to leave with their batch; writing goes on
   * in a fresh one sized for what was used (the next power of two, at least the initial size), so one
   * very large batch does not make every later batch carry, and account, a buffer of its size.
   */
  handOver(used: number): ReturnType<typeof Buffer.allocUnsafeSlow> {
    const full = this.buf;
    let size = this.initialSize;
    while (size < used) size *= 2;
    this.buf = Buffer.allocUnsafeSlow(size);
    this.pos = 0;
    return full;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.pos++] = b;
  }

  /** `n` zero bytes: null branches of unions, empty arrays and maps, a long 0. */
  zeros(n: number): void {
    this.room(n);
    this.buf.fill(0, this.pos, this.pos + n);
    this.pos += n;
  }

  /** Avro long (zig-zag varint), exact for every safe integer as exact-long.ts writes it. */
  long(n: unknown): void {
    if (!Number.isSafeInteger(n)) {
      this.invalid = true;
      return;
    }
    this.varint(n as number);
  }

  /** Avro int: avsc's IntType takes exactly the values with `v === (v | 0)`. */
  int(n: unknown): void {
    if (n !== ((n as number) | 0)) {
      this.invalid = true;
      return;
    }
    this.varint(n);
  }

  double(n: unknown): void {
    if (typeof n !== 'number') {
      this.invalid = true;
      return;
    }
    this.room(8);
    this.f64[0] = n;
    this.buf.set(this.f64Bytes, this.pos);
    this.pos += 8;
  }

  bool(b: unknown): void {
    if (typeof b !== 'boolean') {
      this.invalid = true;
      return;
    }
    this.byte(b ? 1 : 0);
  }

  /**
   * An ASCII string is its chars; anything else is written as avsc's Tap.writeString writes it
   * (its own UTF-8 loop up to 64 bytes, utf8Write beyond), so lone surrogates come out the same.
   */
  str(s: unknown): void {
    if (typeof s !== 'string') {
      this.invalid = true;
      return;
    }
    const len = s.length;
    if (len > 64) {
      // Measured and written by Buffer's native UTF-8 code (avsc's own choice past 64 bytes).
      this.utf8(s);
      return;
    }
    // An ASCII string's byte length is its length; below 64 its zig-zag varint is one byte, 2 × len.
    const head = len < 64 ? 1 : 2;
    this.room(head + len);
    const buf = this.buf;
    const start = this.pos;
    let pos = start + head;
    for (let i = 0; i < len; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        this.utf8(s);
        return;
      }
      buf[pos++] = c;
    }
    if (head === 1) buf[start] = len << 1;
    else {
      // 64: zig-zag 128 is 0x80 0x01.
      buf[start] = 0x80;
      buf[start + 1] = 0x01;
    }
    this.pos = pos;
  }

  /**
   * Runs of fields whose values repeat from one event to the next (an envelope's facts, its client
   * JSON): the generated writers compare the values with the last ones written and, when all are the
   * same, copy the bytes kept (`copy`) instead of writing them again; equal values, equal bytes.
   */
  readonly runs: ByteRun[] = [];

  copy(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** Keeps the bytes written since `start` as those of `values` (unless the write was invalid). */
  keep(run: ByteRun, start: number, values: unknown[]): void {
    if (this.invalid) return;
    run.values = values;
    run.bytes = Uint8Array.prototype.slice.call(this.buf, start, this.pos); // a copy: the buffer is reused
  }

  private utf8(s: string): void {
    const len = Buffer.byteLength(s);
    this.varint(len);
    this.room(len);
    const buf = this.buf;
    let pos = this.pos;
    this.pos += len;
    if (len > 64) {
      buf.write(s, pos, len, 'utf8'); // utf8Write, as avsc calls it
      return;
    }
    // avsc's loop (lib/utils.js, Tap#writeString), kept as it is: a lone surrogate is written as
    // its three bytes, where utf8Write writes U+FFFD.
    for (let i = 0; i < s.length; i++) {
      let c1 = s.charCodeAt(i);
      let c2: number;
      if (c1 < 0x80) buf[pos++] = c1;
      else if (c1 < 0x800) {
        buf[pos++] = (c1 >> 6) | 0xc0;
        buf[pos++] = (c1 & 0x3f) | 0x80;
      } else if ((c1 & 0xfc00) === 0xd800 && ((c2 = s.charCodeAt(i + 1)) & 0xfc00) === 0xdc00) {
        c1 = 0x10000 + ((c1 & 0x03ff) << 10) + (c2 & 0x03ff);
        i++;
        buf[pos++] = (c1 >> 18) | 0xf0;
        buf[pos++] = ((c1 >> 12) & 0x3f) | 0x80;
        buf[pos++] = ((c1 >> 6) & 0x3f) | 0x80;
        buf[pos++] = (c1 & 0x3f) | 0x80;
      } else {
        buf[pos++] = (c1 >> 12) | 0xe0;
        buf[pos++] = ((c1 >> 6) & 0x3f) | 0x80;
        buf[pos++] = (c1 & 0x3f) | 0x80;
      }
    }
  }

  /** Zig-zag varint of a safe integer, the minimal encoding (as exact-long.ts writes every long). */
  varint(n: number): void {
    this.room(10);
    writeLong(this, n);
  }
}

/** The values of a run of fields last written, and their bytes (null before the first). */
export interface ByteRun {
  values: unknown[];
  bytes: Uint8Array | null;
}
