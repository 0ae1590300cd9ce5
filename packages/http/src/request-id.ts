import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

/** A well-formed request id: what a client may send as X-Request-Id and ask about later. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

/** Honours a well-formed incoming X-Request-Id so a client can correlate retries; otherwise mints one. */
export function requestId(req: Request, res: Response, next: NextFunction) {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
  req.requestId = id;
  res.setHeader('X-Request-Id', id);
  next();
}
