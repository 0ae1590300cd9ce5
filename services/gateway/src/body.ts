import { createGunzip, createInflate, type Gunzip, type Inflate } from 'node:zlib';
import type { Request } from 'express';
import { ApiError } from '@evp/core';

/**
 * Reads the request body with hard bounds: the compressed bytes and the decompressed bytes are both
 * capped while streaming, so a zip bomb is cut off after `maxBytes` of output and costs nothing more.
 */
export async function readBody(req: Request, maxBytes: number): Promise<Buffer> {
  const encoding = String(req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  let decoder: Gunzip | Inflate | undefined;
  if (encoding === 'gzip' || encoding === 'x-gzip') decoder = createGunzip();
  else if (encoding === 'deflate') decoder = createInflate();
  else if (encoding !== 'identity' && encoding !== '') {
    throw new ApiError('unsupported_encoding', { path: 'headers.content-encoding' });
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw new ApiError('payload_too_large', tooLarge(maxBytes));

  const source: NodeJS.ReadableStream = decoder ? req.pipe(decoder) : req;
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > maxBytes) {
        req.unpipe();
        decoder?.destroy();
        req.resume();
        throw new ApiError('payload_too_large', tooLarge(maxBytes));
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError('invalid_request', {
      message: `The body could not be ${decoder ? 'decompressed' : 'read'}: ${(err as Error).message}`,
      path: '$',
    });
  }
  return Buffer.concat(chunks, total);
}

const tooLarge = (maxBytes: number) => ({
  message: `The body exceeds ${maxBytes} bytes (after decompression).`,
  details: { max_bytes: maxBytes },
});

/** sendBeacon posts text/plain; both carry JSON. A charset parameter is fine. */
export function checkContentType(req: Request): void {
  const type = String(req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json' && type !== 'text/plain') {
    throw new ApiError('unsupported_media_type', { path: 'headers.content-type' });
  }
}
