import type { NextFunction, Request, Response } from 'express';
import { ApiError, type Logger } from '@evp/core';

/** Turns anything thrown in a route into the one JSON error shape; unknown errors become `internal`. */
export function errorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const apiError = toApiError(err);
    if (apiError.status >= 500) logger.error({ err, requestId: req.requestId }, 'request failed');
    if (apiError.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(apiError.retryAfterSeconds));
    res.status(apiError.status).json(apiError.body(req.requestId));
  };
}

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  // body-parser errors carry a `type` and a `status`.
  const e = err as { type?: string; status?: number };
  if (e?.type === 'entity.parse.failed') return new ApiError('invalid_json', { path: '$' });
  if (e?.type === 'entity.too.large') return new ApiError('payload_too_large');
  if (e?.type === 'encoding.unsupported') return new ApiError('unsupported_encoding', { path: 'headers.content-encoding' });
  return new ApiError('internal');
}

export function notFound(req: Request, _res: Response, next: NextFunction) {
  next(new ApiError('not_found', { message: `No route ${req.method} ${req.path}.` }));
}
