import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * A route taken on every request of a busy service (the gateway's ingest). It is registered on the
 * router like any other route, and requests whose method and URL match it exactly also skip
 * Express's dispatch: the router matches each request against every layer in turn, and Express
 * re-parents every request and response onto its own prototypes, which made later property access on
 * them slower. Together that was about a seventh of the gateway's CPU per request.
 *
 * Contract of a hot route's handlers and of the middleware before them: they get Node's own request
 * and response (plus `requestId`, `grant` and `route.path`), so they use `writeHead`/`end`, not
 * `res.json`. Errors (next(err), a throw, a rejection) and a request nobody answered go to the app's
 * error handler as usual, with Express's request and response restored first. Anything that does not
 * match exactly (a query string, a trailing slash, other letter case) takes the router as before.
 */
export interface HotRoute {
  method: 'GET' | 'POST';
  path: string;
  handlers: RequestHandler[];
}

type Handle = (req: Request, res: Response, callback?: NextFunction) => void;

/** Runs Express-style handlers in order; a thrown error, a rejected promise or next(err) goes to onError. */
export function runHandlers(handlers: RequestHandler[], req: Request, res: Response, onError: (err: unknown) => void): void {
  let i = 0;
  const next: NextFunction = (err?: unknown) => {
    if (err !== undefined && err !== null) return onError(err);
    const handler = handlers[i++];
    if (!handler) return;
    try {
      const result = handler(req, res, next);
      if (result instanceof Promise) result.then(undefined, next);
    } catch (thrown) {
      next(thrown ?? new Error('handler threw a nullish value'));
    }
  };
  next();
}

/**
 * Wraps the app's dispatch so requests for a hot route run `before` + the route's handlers directly.
 * `last` (not found) and `onError` run with the request and response made what Express makes them.
 */
export function installHotRoutes(
  app: Express,
  routes: HotRoute[],
  opts: { before: RequestHandler[]; last: RequestHandler; onError: (err: unknown, req: Request, res: Response) => void },
): void {
  const table = new Map<string, { chain: RequestHandler[]; route: { path: string } }>();
  const express = app as unknown as { handle: Handle; request: object; response: object };
  const routerHandle = express.handle;

  /** What Express's own dispatch does to a request and response, for the code that expects it. */
  const expressify = (req: Request, res: Response) => {
    if (Object.getPrototypeOf(res) === express.response) return;
    req.res = res;
    res.req = req;
    Object.setPrototypeOf(req, express.request);
    Object.setPrototypeOf(res, express.response);
    res.locals ??= Object.create(null) as Record<string, unknown>;
    req.originalUrl = req.url;
    req.params = {};
  };
  const last: RequestHandler = (req, res, next) => {
    expressify(req, res);
    opts.last(req, res, next);
  };
  for (const r of routes) table.set(`${r.method} ${r.path}`, { chain: [...opts.before, ...r.handlers, last], route: { path: r.path } });

  express.handle = function handle(this: unknown, req, res, callback) {
    const hot = table.get(`${req.method} ${req.url}`);
    if (!hot) return routerHandle.call(this, req, res, callback);
    req.route = hot.route;
    runHandlers(hot.chain, req, res, (err) => {
      expressify(req, res);
      opts.onError(err, req, res);
    });
  };
}
