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

/** The pages' shared frame (the inspector, the console's Keys page): one look, written once. */
export const PAGE_FRAME_CSS = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1b1f24; background: #f6f8fa; }
header { padding: 12px 20px; background: #fff; border-bottom: 1px solid #d0d7de; }
h1 { font-size: 18px; margin: 0 0 8px; }
`;
