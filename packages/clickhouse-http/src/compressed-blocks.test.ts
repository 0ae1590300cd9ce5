import { ClickHouseFailure } from '@evp/core';
import { cityHash128 } from './city-hash128';
import { compressBlocks, decompressBlocks } from './compressed-blocks';

// One block as ClickHouse itself wrote it (chdb 26.7, a `String CODEC(LZ4)` MergeTree column holding
// 'event-' || toString(number % 7) for 100 rows; the values' lengths are in a file of their own).
const CLICKHOUSE_LZ4_BLOCK = Buffer.from(
  '11124bddbf07e8f1ad8cdac9283b41e98237000000bc020000726576656e742d3007001231070012320700123307001234070012350700123607000f3100ffff6f50656e742d31',
  'hex',
);

describe("ClickHouse's compressed block framing", () => {
  it("reads ClickHouse's own LZ4 block", () => {
    const expected = Buffer.concat(Array.from({ length: 100 }, (_, i) => Buffer.from(`event-${i % 7}`)));
    expect(decompressBlocks(CLICKHOUSE_LZ4_BLOCK)).toEqual(expected);
  });

  it('round-trips through blocks of at most blockSize bytes, each LZ4 with its checksum', () => {
    const data = Buffer.from('SELECT campaign_id FROM campaigns\n'.repeat(100));
    const framed = compressBlocks(data, 1000);
    // 3400 bytes in blocks of 1000: four blocks, each method 0x82 and smaller than its input.
    let at = 0;
    const sizes: number[] = [];
    while (at < framed.length) {
      expect(framed[at + 16]).toBe(0x82);
      sizes.push(framed.readUInt32LE(at + 21));
      at += 16 + framed.readUInt32LE(at + 17);
    }
    expect(sizes).toEqual([1000, 1000, 1000, 400]);
    expect(framed.length).toBeLessThan(data.length);
    expect(decompressBlocks(framed)).toEqual(data);
    expect(compressBlocks(Buffer.alloc(0))).toEqual(Buffer.alloc(0));
    expect(decompressBlocks(Buffer.alloc(0))).toEqual(Buffer.alloc(0));
  });

  it('refuses a flipped bit (40), a cut block (271) and a method it does not read (89)', () => {
    const framed = compressBlocks(Buffer.from('SELECT 1'));
    const flipped = Buffer.from(framed);
    flipped[framed.length - 1] = (flipped[framed.length - 1] as number) ^ 1;
    const zstd = Buffer.from(framed);
    zstd[16] = 0x90;
    const [low, high] = cityHash128(zstd.subarray(16));
    zstd.writeBigUInt64LE(low, 0);
    zstd.writeBigUInt64LE(high, 8);
    const cases: [Buffer, number, string][] = [
      [flipped, 40, 'CHECKSUM_DOESNT_MATCH'],
      [framed.subarray(0, framed.length - 1), 271, 'CANNOT_DECOMPRESS'],
      [framed.subarray(0, 20), 271, 'CANNOT_DECOMPRESS'],
      [zstd, 89, 'UNKNOWN_COMPRESSION_METHOD'],
    ];
    for (const [bytes, code, type] of cases) {
      expect(() => decompressBlocks(bytes)).toThrow(expect.objectContaining({ code, type }) as ClickHouseFailure);
    }
  });
});
