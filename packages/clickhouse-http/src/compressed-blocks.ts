import { compressSync, uncompressSync } from 'lz4-napi';
import { ClickHouseFailure } from '@evp/core';
import { cityHash128 } from './city-hash128';

/**
 * ClickHouse's own compressed framing, what `compress=1` asks of a response and `decompress=1` says of
 * a request body (the JDBC driver sends compress=1 by default). A stream of blocks, each:
 *
 *   16 bytes  CityHash128 v1.0.2 of the rest of the block (low 64 bits, then high, little-endian)
 *    1 byte   method: 0x82 LZ4, 0x02 none (0x90 ZSTD and the others are not read here)
 *    4 bytes  compressed size including these 9 header bytes (UInt32 LE)
 *    4 bytes  uncompressed size (UInt32 LE)
 *    …        the LZ4 block (raw LZ4, no frame), or the bytes themselves
 *
 * LZ4 itself is lz4-napi (lz4_flex): its block functions prepend the uncompressed size as UInt32 LE,
 * which is dropped on the way out and put back on the way in.
 */
const LZ4 = 0x82;
const NONE = 0x02;
const HEADER = 9;
const CHECKSUM = 16;

/** ClickHouse's max_compress_block_size default: a response is cut into blocks of at most this many bytes. */
const BLOCK_SIZE = 1024 * 1024;

/** ClickHouse's own refusal codes for a bad compressed stream. */
const corrupt = (what: string) => new ClickHouseFailure(271, 'CANNOT_DECOMPRESS', `Cannot decompress the request body: ${what}`);

/** `data` as LZ4 blocks of at most `blockSize` uncompressed bytes; no bytes, no block (as ClickHouse). */
export function compressBlocks(data: Buffer, blockSize = BLOCK_SIZE): Buffer {
  return Buffer.concat([...compressedBlocks(data, blockSize)]);
}

/**
 * The blocks one at a time, for a caller that lets other work run between them: the checksum costs
 * about 100 ms per MiB of compressed bytes (BigInt arithmetic, measured on this 2-core machine).
 */
export function* compressedBlocks(data: Buffer, blockSize = BLOCK_SIZE): Generator<Buffer> {
  for (let at = 0; at < data.length; at += blockSize) {
    const chunk = data.subarray(at, at + blockSize);
    const lz4 = compressSync(chunk).subarray(4);
    const block = Buffer.alloc(CHECKSUM + HEADER + lz4.length);
    block[CHECKSUM] = LZ4;
    block.writeUInt32LE(HEADER + lz4.length, CHECKSUM + 1);
    block.writeUInt32LE(chunk.length, CHECKSUM + 5);
    lz4.copy(block, CHECKSUM + HEADER);
    const [low, high] = cityHash128(block.subarray(CHECKSUM));
    block.writeBigUInt64LE(low, 0);
    block.writeBigUInt64LE(high, 8);
    yield block;
  }
}

/** The bytes of a stream of blocks, each checked against its checksum (ClickHouse's 40 CHECKSUM_DOESNT_MATCH when not). */
export function decompressBlocks(data: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  while (at < data.length) {
    if (data.length - at < CHECKSUM + HEADER) throw corrupt('truncated block header');
    const method = data[at + CHECKSUM] as number;
    const size = data.readUInt32LE(at + CHECKSUM + 1);
    const plain = data.readUInt32LE(at + CHECKSUM + 5);
    if (size < HEADER || at + CHECKSUM + size > data.length) throw corrupt('truncated block');
    const block = data.subarray(at + CHECKSUM, at + CHECKSUM + size);
    const [low, high] = cityHash128(block);
    if (low !== data.readBigUInt64LE(at) || high !== data.readBigUInt64LE(at + 8)) {
      throw new ClickHouseFailure(40, 'CHECKSUM_DOESNT_MATCH', 'Checksum doesn\u2019t match: corrupted data in the request body');
    }
    const payload = block.subarray(HEADER);
    if (method === NONE) {
      if (payload.length !== plain) throw corrupt('uncompressed block of the wrong size');
      out.push(payload);
    } else if (method === LZ4) {
      const prefixed = Buffer.alloc(4 + payload.length);
      prefixed.writeUInt32LE(plain, 0);
      payload.copy(prefixed, 4);
      let bytes: Buffer;
      try {
        bytes = uncompressSync(prefixed);
      } catch {
        throw corrupt('invalid LZ4 block');
      }
      if (bytes.length !== plain) throw corrupt('LZ4 block of the wrong size');
      out.push(bytes);
    } else {
      throw new ClickHouseFailure(89, 'UNKNOWN_COMPRESSION_METHOD', `Compression method 0x${method.toString(16)} is not supported here; use LZ4 (0x82)`);
    }
    at += CHECKSUM + size;
  }
  return Buffer.concat(out);
}
