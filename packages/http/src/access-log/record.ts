import type { Request } from 'express';
import { ApiError, InfraError, type Logger } from '@evp/core';
import { grantOf } from '../auth';
import type { AccessLog } from './log';
import type { AccessRead } from './model';

/** What a route adds to the key's grant: which route, which person, how many rows. */
export type ReadFacts = Pick<AccessRead, 'route'> & Partial<Pick<AccessRead, 'person' | 'rows'>>;

/**
 * Records one read by the request's key before the answer leaves: "no log, no read". When the log
 * cannot be written the read is refused with 503 access_log_unavailable (retriable), so no data
 * leaves unrecorded (docs/privacy.md, "Access log").
 */
export function readRecorder(log: AccessLog, logger: Logger, retryAfterSeconds: number) {
  return async (req: Request, facts: ReadFacts): Promise<void> => {
    const { appId, keyId, role } = grantOf(req);
    try {
      await log.append({ appId, keyId, role, ...facts });
    } catch (err) {
      if (!(err instanceof InfraError)) throw err;
      logger.warn({ err, requestId: req.requestId, route: facts.route }, 'the access log cannot be written; refusing the read');
      throw new ApiError('access_log_unavailable', { retryAfterSeconds, details: { retriable: true } });
    }
  };
}

export type RecordRead = ReturnType<typeof readRecorder>;
