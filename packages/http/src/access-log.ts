import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '@evp/core';

/**
 * One structured line per finished request. Only chosen fields are logged — never the headers — so an
 * Authorization key cannot end up in the logs whatever the redaction list says.
 */
export function accessLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      logger.info(
        {
          requestId: req.requestId,
          method: req.method,
          route: (req.route?.path as string | undefined) ?? 'unmatched',
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - start) / 1e6,
          ...(req.grant ? { app: req.grant.appId, keyId: req.grant.keyId } : {}),
        },
        'request',
      );
    });
    next();
  };
}
