import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '@evp/core';
import { grantOf } from '@evp/http';
import type { Counter } from 'prom-client';
import type { RateLimiter } from './port';

/** Runs after requireKey: the SDK key id is the rate-limit key, so one app's fleet shares one budget. */
export function rateLimit(limiter: RateLimiter, refused: Counter) {
  return (req: Request, _res: Response, next: NextFunction) => {
    limiter.take(grantOf(req).keyId).then(
      (d) => {
        if (d.allowed) return next();
        refused.inc();
        next(new ApiError('rate_limited', { retryAfterSeconds: d.retryAfterSeconds, details: { retry_after_seconds: d.retryAfterSeconds } }));
      },
      // Adapters are wrapped in failOpen; anything reaching here is a bug, answered as 500.
      next,
    );
  };
}
