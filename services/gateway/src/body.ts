import { createGunzip, createInflate, type Gunzip, type Inflate } from 'node:zlib';
import type { Request } from 'express';
import { ApiError } from '@evp/core';

/**
 * Reads the request body with hard bounds: the compressed bytes and the decompressed bytes are both
 * capped while streaming, so a zip bomb is cut off after `maxBytes` of output and costs nothing more.
 */
export async function readBody(req: Request, maxBytes: number): Promise<Buffer> {
  const encoding = String(req.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  let decoder: Gunzip | Inflate | undefined;
  if (encoding === 'gzip' || encoding === 'x-gzip') decoder = createGunzip();
  else if (encoding === 'deflate') decoder = createInflate();
  else if (encoding !== 'identity' && encoding !== '') {
    throw new ApiError('unsupported_encoding', { path: 'headers.content-encoding' });
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw new ApiError('payload_too_large', tooLarge(maxBytes));

  if (!decoder) return readPlain(req, maxBytes);
  const source: NodeJS.ReadableStream = req.pipe(decoder);
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

/**
 * The uncompressed case (nearly every SDK request) with plain stream events: an async iterator per
 * request costs more than the JSON.parse of a typical 7 KB body.
 */
function readPlain(req: Request, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) {
        cleanup();
        req.resume();
        reject(new ApiError('payload_too_large', tooLarge(maxBytes)));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(new ApiError('invalid_request', { message: `The body could not be read: ${err.message}`, path: '$' }));
    };
    // A client that hangs up mid-body: 'close' without 'end' (never resolve a half body).
    const onClose = () => onError(new Error('the client closed the connection'));
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

const tooLarge = (maxBytes: number) => ({
  message: `The body exceeds ${maxBytes} bytes (after decompression).`,
  details: { max_bytes: maxBytes },
});
