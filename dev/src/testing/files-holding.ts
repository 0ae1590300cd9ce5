import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { decompress as zstd } from 'fzstd';
import { decompressBlocks } from '@evp/clickhouse-http';

/** Files of a part that hold ClickHouse's compressed blocks (column data, compressed marks, primary index). */
const COMPRESSED = /\.(bin|cidx|cmrk\d*)$/;

const ZSTD = 0x90;
const CHECKSUM = 16;
const HEADER = 9;

/**
 * The bytes of a file of ClickHouse's compressed blocks: LZ4 and uncompressed blocks through the
 * platform's own reader (checksums checked), ZSTD ones (chdb's default for marks and the primary
 * index) through fzstd. Any other method throws.
 */
function plainBytes(data: Buffer): Buffer {
  const out: Buffer[] = [];
  for (let at = 0; at < data.length;) {
    const size = data.readUInt32LE(at + CHECKSUM + 1);
    const block = data.subarray(at, at + CHECKSUM + size);
    out.push(data[at + CHECKSUM] === ZSTD ? Buffer.from(zstd(block.subarray(CHECKSUM + HEADER))) : decompressBlocks(block));
    at += CHECKSUM + size;
  }
  return Buffer.concat(out);
}

/**
 * The files under `dirs` (recursively) whose bytes contain `needle`, compressed files read both as
 * stored and decompressed: LZ4 may replace part of a string by a back-reference to an earlier equal
 * run, so a raw search alone could miss a value that is there. A compressed file that cannot be
 * decompressed (another codec) throws: absence is only claimed for what was read.
 */
export function filesHolding(dirs: readonly string[], needle: string): string[] {
  const wanted = Buffer.from(needle);
  const found: string[] = [];
  const walk = (d: string) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return; // an old part's directory removed while it was being read
    }
    for (const e of entries) {
      const path = join(d, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.isFile()) {
        let bytes: Buffer;
        try {
          bytes = readFileSync(path);
        } catch {
          continue; // removed between the listing and the read
        }
        if (bytes.includes(wanted) || (COMPRESSED.test(e.name) && bytes.length > 0 && plainBytes(bytes).includes(wanted))) found.push(path);
      }
    }
  };
  for (const dir of dirs) walk(dir);
  return found;
}
