import type { NextFunction, Request, Response } from 'express';
import { ApiError, type Logger } from '@evp/core';

/** Turns anything thrown in a route into the one JSON error shape; unknown errors become `internal`. */
export function errorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const apiError = toApiError(err);
    // Only our own faults are errors worth a stack trace: client input must not be able to flood the log.
    if (apiError.status >= 500) logger.error({ err, requestId: req.requestId }, 'request failed');
    if (apiError.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(apiError.retryAfterSeconds));
    res.status(apiError.status).json(apiError.body(req.requestId));
  };
}

/**
 * Our errors pass through; the 4xx errors Express's router and body-parser raise for client input
 * (they carry a `status`, and body-parser a `type`) become the matching code. Everything else is ours.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const e = err as { type?: string; status?: unknown; message?: unknown } | null | undefined;
  const status = typeof e?.status === 'number' ? e.status : undefined;
  if (status === undefined || status < 400 || status >= 500) return new ApiError('internal');
  switch (e?.type) {
    case 'entity.parse.failed':
      return new ApiError('invalid_json', { path: '$' });
    case 'entity.too.large':
      return new ApiError('payload_too_large');
    case 'encoding.unsupported':
      return new ApiError('unsupported_encoding', { path: 'headers.content-encoding' });
    case 'charset.unsupported':
      return new ApiError('unsupported_media_type', { path: 'headers.content-type' });
    default:
      // Any other 4xx (or no body-parser type): decided by the checks below.
      break;
  }
  // The router decoding a path parameter (`/v1/actions/%E0/stats`).
  if (err instanceof URIError) return new ApiError('invalid_request', { message: 'A path parameter is not valid percent-encoded UTF-8.', path: 'path' });
  // A body that could not be read: corrupt gzip/deflate, a client hanging up, a wrong Content-Length.
  return new ApiError('invalid_request', { message: `The body could not be read: ${typeof e?.message === 'string' ? e.message : 'unknown error'}`, path: '$' });
}

export function notFound(req: Request, _res: Response, next: NextFunction) {
  next(new ApiError('not_found', { message: `No route ${req.method} ${req.path}.` }));
}
