import type { NextFunction, Request, Response } from 'express';

/**
 * CORS for browser SDKs: `*` or an explicit origin list; preflight answered without auth. Not for
 * the server-side import paths (`/data/…`, API key): an API key must never be used from a browser,
 * so they get no CORS headers and no preflight answer (as the action store's API-key routes).
 */
export function cors(allowedOrigins: string[]) {
  const any = allowedOrigins.includes('*');
  return (req: Request, res: Response, next: NextFunction) => {
    // req.url, not req.path: hot routes run this on Node's own request (packages/http/src/hot-routes.ts).
    if (req.url?.startsWith('/data/')) return next();
    const origin = req.headers.origin;
    if (origin && (any || allowedOrigins.includes(origin))) {
      res.setHeader('Access-Control-Allow-Origin', any ? '*' : origin);
      if (!any) res.setHeader('Vary', 'Origin');
      res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, Content-Encoding, X-Request-Id');
      res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      res.setHeader('Access-Control-Max-Age', '600');
      res.setHeader('Access-Control-Expose-Headers', 'X-Request-Id, Retry-After');
    }
    if (req.method === 'OPTIONS') return res.status(204).end();
    next();
  };
}
