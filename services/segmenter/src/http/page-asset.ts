import type { Request, Response } from 'express';

/** A page's own asset: served with a policy that lets it load nothing but this origin's files and call this origin. */
export function pageAsset(type: string, body: string) {
  return (_req: Request, res: Response) => {
    res.setHeader('Content-Type', `${type}; charset=utf-8`);
    res.setHeader('Content-Security-Policy', "default-src 'self'; frame-ancestors 'none'");
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-cache');
    res.status(200).send(body);
  };
}
