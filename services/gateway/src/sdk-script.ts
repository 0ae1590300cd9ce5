import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Request, Response } from 'express';
import { ApiError, type Logger } from '@evp/core';

/** The web library's script build (docs/sdk-web.md): the core (global `evp`) and the parts it loads when needed (the message renderer, the action pull, error capture, context, web vitals, a 413's split). */
export const SDK_SCRIPT_FILES = ['web.js', 'web-messages.js', 'web-actions.js', 'web-errors.js', 'web-context.js', 'web-vitals.js', 'web-split.js'] as const;

/** Where the script build comes from: built in process (`npm start`) or read from the image (services). */
export type ScriptFiles = () => Promise<Readonly<Record<(typeof SDK_SCRIPT_FILES)[number], string>>>;

/**
 * A stable URL (`/sdk/web.js`, not a hashed name: sites paste it once), so a short freshness and a
 * strong ETag: a browser re-validates at most every 5 minutes and gets a 304 while the build is
 * unchanged; a new build reaches every site within 5 minutes (+ 1 day served stale while re-validating
 * in the background). posthog-js's array.js and Segment's analytics.js are served the same way.
 */
export const SCRIPT_CACHE_CONTROL = 'public, max-age=300, stale-while-revalidate=86400';

interface Served {
  body: Buffer;
  etag: string;
}

/** The files of a directory the image build wrote the script build into (deploy/docker/Dockerfile). */
export const scriptFilesFromDir =
  (dir: string): ScriptFiles =>
  async () => {
    const [core, messages, actions, errors, context, vitals, split] = await Promise.all(SDK_SCRIPT_FILES.map((f) => readFile(join(dir, f), 'utf8')));
    return {
      'web.js': core as string,
      'web-messages.js': messages as string,
      'web-actions.js': actions as string,
      'web-errors.js': errors as string,
      'web-context.js': context as string,
      'web-vitals.js': vitals as string,
      'web-split.js': split as string,
    };
  };

/** True when If-None-Match names the ETag (or is `*`): the browser's copy is current. */
function notModified(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}

/**
 * `GET /sdk/{file}`: the script build with `Content-Type: text/javascript`, its content hash as the
 * ETag (304 on a match), the cache policy above, and `Access-Control-Allow-Origin: *` plus
 * `Cross-Origin-Resource-Policy: cross-origin`, so any site may load it, with `crossorigin` and
 * subresource integrity too. The files are loaded once, on first request (a failed load is retried
 * on the next one and answers 503 `not_enabled` meanwhile).
 */
export function sdkScriptHandler(load: ScriptFiles, logger: Logger) {
  let files: Promise<Map<string, Served>> | undefined;
  const served = () =>
    (files ??= load().then(
      (all) =>
        new Map(
          Object.entries(all).map(([name, text]) => {
            const body = Buffer.from(text, 'utf8');
            return [name, { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }];
          }),
        ),
      (err: unknown) => {
        files = undefined;
        throw err;
      },
    ));
  return async (req: Request, res: Response) => {
    const name = String(req.params.file);
    if (!(SDK_SCRIPT_FILES as readonly string[]).includes(name)) {
      throw new ApiError('not_found', {
        message: `There is no /sdk/${name.slice(0, 64)}; the files are ${SDK_SCRIPT_FILES.join(' and ')}.`,
        path: 'params.file',
      });
    }
    let file: Served | undefined;
    try {
      file = (await served()).get(name);
    } catch (err) {
      logger.error({ err }, 'the web library script build could not be loaded');
    }
    if (!file) throw new ApiError('not_enabled', { message: 'The web library script build is not available in this deployment.' });
    res.setHeader('Cache-Control', SCRIPT_CACHE_CONTROL);
    res.setHeader('ETag', file.etag);
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (notModified(req.headers['if-none-match'], file.etag)) {
      res.writeHead(304).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Content-Length': file.body.length });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  };
}
