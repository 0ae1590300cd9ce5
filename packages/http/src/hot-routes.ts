import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * A route taken on every request of a busy service (the gateway's ingest). It is registered on the
 * router like any other route, and requests whose method and URL match it exactly also skip the
 * router: Express matches each request against every layer in turn, which cost the gateway about a
 * tenth of its CPU per request. Same handlers, same middleware before them, same error handler;
 * anything else (a query string, a trailing slash, other letter case) takes the router as before.
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
      const result = handler(req, res, next) as unknown;
      if (result instanceof Promise) result.then(undefined, next);
    } catch (thrown) {
      next(thrown ?? new Error('handler threw a nullish value'));
    }
  };
  next();
}

/**
 * Wraps the app's dispatch so requests for a hot route run `before` + the route's handlers + `last`
 * directly. The request and response get what Express's own dispatch gives them (prototypes, circular
 * references, locals) and `req.route.path` for the metrics and access log labels.
 */
export function installHotRoutes(
  app: Express,
  routes: HotRoute[],
  opts: { before: RequestHandler[]; last: RequestHandler; onError: (err: unknown, req: Request, res: Response) => void },
): void {
  const table = new Map<string, { chain: RequestHandler[]; route: { path: string } }>(
    routes.map((r) => [`${r.method} ${r.path}`, { chain: [...opts.before, ...r.handlers, opts.last], route: { path: r.path } }]),
  );
  const express = app as unknown as { handle: Handle; request: object; response: object };
  const routerHandle = express.handle;
  express.handle = function handle(this: unknown, req, res, callback) {
    const hot = table.get(`${req.method} ${req.url}`);
    if (!hot) return routerHandle.call(this, req, res, callback);
    req.res = res;
    res.req = req;
    Object.setPrototypeOf(req, express.request);
    Object.setPrototypeOf(res, express.response);
    res.locals ??= Object.create(null) as Record<string, unknown>;
    req.originalUrl = req.url;
    req.params = {};
    req.route = hot.route;
    runHandlers(hot.chain, req, res, (err) => opts.onError(err, req, res));
  };
}
