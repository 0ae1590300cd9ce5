import express, { type NextFunction, type Request, type Response } from 'express';
import { ApiError } from '@evp/core';

/**
 * Every JSON route takes `application/json` or `text/plain` (sendBeacon and browsers' simple
 * requests post JSON as text/plain). A charset parameter is fine when it says UTF-8; any other is
 * refused here, before the body is read, rather than decoded as something it is not or handed to a
 * decoder that throws.
 */
export function checkJsonContentType(req: Request): void {
  const header = String(req.headers['content-type'] ?? '');
  const [type, ...params] = header.split(';');
  const media = type?.trim().toLowerCase();
  if (media !== 'application/json' && media !== 'text/plain') {
    throw new ApiError('unsupported_media_type', { path: 'headers.content-type' });
  }
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const charset = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    // JSON is UTF-8 (RFC 8259); the action store's body parser also refuses the `utf8` spelling.
    if (charset !== 'utf-8') {
      throw new ApiError('unsupported_media_type', {
        message: `The body must be UTF-8 JSON; charset '${charset.slice(0, 40)}' is not accepted.`,
        path: 'headers.content-type',
      });
    }
  }
}

/** A JSON body of at most `limit` bytes, UTF-8 only (checkJsonContentType); anything else is 415. */
export function jsonBody(limit: number) {
  const parse = express.json({ limit, type: () => true });
  return (req: Request, res: Response, next: NextFunction) => {
    checkJsonContentType(req);
    parse(req, res, next);
  };
}
