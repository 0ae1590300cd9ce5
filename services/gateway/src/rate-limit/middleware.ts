import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '@evp/core';
import { grantOf } from '@evp/http';
import type { Counter } from 'prom-client';
import type { RateLimiter } from './port';

/**
 * Runs after requireKey: the SDK key id is the rate-limit key, so one app's fleet shares one budget.
 * A client that reads no status (`closeInstead`) would delete its batch on a 429: its connection is
 * closed instead, so it keeps the batch and sends it again later.
 */
export function rateLimit(limiter: RateLimiter, refused: Counter, closeInstead: (req: Request) => boolean = () => false) {
  return (req: Request, _res: Response, next: NextFunction) => {
    limiter.take(grantOf(req).keyId).then(
      (d) => {
        if (d.allowed) return next();
        refused.inc();
        if (closeInstead(req)) {
          req.socket.destroy();
          return;
        }
        next(new ApiError('rate_limited', { retryAfterSeconds: d.retryAfterSeconds, details: { retry_after_seconds: d.retryAfterSeconds } }));
      },
      // Adapters are wrapped in failOpen; anything reaching here is a bug, answered as 500.
      next,
    );
  };
}
