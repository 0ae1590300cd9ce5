import type { NextFunction, Request, Response } from 'express';

/** CORS for browser SDKs: `*` or an explicit origin list; preflight answered without auth. */
export function cors(allowedOrigins: string[]) {
  const any = allowedOrigins.includes('*');
  return (req: Request, res: Response, next: NextFunction) => {
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
