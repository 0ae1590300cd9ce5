import type { NextFunction, Request, Response } from 'express';

export interface BrowserCorsOptions {
  /** `*` or the exact origins allowed. */
  allowedOrigins: readonly string[];
  /** Request headers a browser may send (`Access-Control-Allow-Headers`). */
  allowHeaders: readonly string[];
  /** Methods a browser may use (`Access-Control-Allow-Methods`). Default POST, OPTIONS. */
  allowMethods?: readonly string[];
  /** Answer an OPTIONS request here with 204 (true), or leave it to a route of its own (false). */
  answerPreflight: boolean;
  /** Requests this returns true for get no CORS headers (routes a browser must never call). */
  skip?: (url: string) => boolean;
}

/**
 * CORS for the routes browser SDKs call with the SDK key (which is public). API-key routes get none:
 * an API key must never be used from a browser. Written for Node's own request as well as
 * Express's (the gateway's hot routes run middleware on the former): only `url`, `headers`,
 * `method`, `setHeader`, `statusCode` and `end`.
 */
export function browserCors(opts: BrowserCorsOptions) {
  const any = opts.allowedOrigins.includes('*');
  const allowHeaders = opts.allowHeaders.join(', ');
  const allowMethods = (opts.allowMethods ?? ['POST', 'OPTIONS']).join(', ');
  return (req: Request, res: Response, next: NextFunction) => {
    if (opts.skip?.(req.url ?? '')) return next();
    const origin = req.headers.origin;
    if (origin && (any || opts.allowedOrigins.includes(origin))) {
      res.setHeader('Access-Control-Allow-Origin', any ? '*' : origin);
      if (!any) res.setHeader('Vary', 'Origin');
      res.setHeader('Access-Control-Allow-Headers', allowHeaders);
      res.setHeader('Access-Control-Allow-Methods', allowMethods);
      res.setHeader('Access-Control-Max-Age', '600');
      // Date: the web library judges message expiry on the platform's clock, not the device's.
      res.setHeader('Access-Control-Expose-Headers', 'X-Request-Id, Retry-After, Date');
    }
    if (opts.answerPreflight && req.method === 'OPTIONS') {
      res.statusCode = 204;
      res.end();
      return;
    }
    next();
  };
}
