import type { NextFunction, Request, Response } from 'express';
import { ApiError, type KeyGrant, type KeyRing, type Role } from '@evp/core';

declare module 'express-serve-static-core' {
  interface Request {
    grant?: KeyGrant;
    requestId?: string;
  }
}

/** The query parameter a beacon upload carries its SDK key in (docs/api.md, "The SDK key in the URL"). */
export const SDK_KEY_PARAM = 'sdk_key';

export interface RequireKeyOptions {
  /**
   * Also take an SDK key from the query parameter `sdk_key` when there is no Authorization header:
   * `navigator.sendBeacon` cannot set headers. Only for the ingest routes; an API key there is
   * refused (`api_key_in_url`), whatever the route's roles, since it is a secret now in a URL.
   */
  sdkKeyInQuery?: boolean;
}

/** The values of one query parameter of a raw URL (Node's request has no parsed query). */
function queryValues(url: string | undefined, name: string): string[] {
  const q = url?.indexOf('?') ?? -1;
  return q < 0 ? [] : new URLSearchParams((url as string).slice(q + 1)).getAll(name);
}

/**
 * Reads `Authorization: Bearer <key>` (or, with `sdkKeyInQuery`, `?sdk_key=`); the key alone decides
 * the app, never the body. `role` may list several.
 */
export function requireKey(keys: KeyRing, role: Role | readonly Role[], opts: RequireKeyOptions = {}) {
  const roles: readonly Role[] = typeof role === 'string' ? [role] : role;
  const needed = roles.map((r) => `'${r}'`).join(' or ');
  const missing = opts.sdkKeyInQuery ? `Send the SDK key as Authorization: Bearer <key>, or (sendBeacon) as the query parameter ${SDK_KEY_PARAM}.` : undefined;
  return (req: Request, _res: Response, next: NextFunction) => {
    const header = req.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    let key = match?.[1];
    let path = 'headers.authorization';
    if (opts.sdkKeyInQuery) {
      const inQuery = queryValues(req.url, SDK_KEY_PARAM);
      if (inQuery.length > 1)
        return next(new ApiError('invalid_request', { message: `${SDK_KEY_PARAM} is given more than once.`, path: `query.${SDK_KEY_PARAM}` }));
      const queried = inQuery[0];
      // Checked even beside a header: an API key in a URL is a leaked secret the app must hear of.
      if (queried !== undefined && keys.lookup(queried)?.role === 'api') return next(new ApiError('api_key_in_url', { path: `query.${SDK_KEY_PARAM}` }));
      if (header === undefined && queried !== undefined) {
        key = queried;
        path = `query.${SDK_KEY_PARAM}`;
      }
    }
    if (key === undefined) return next(new ApiError('auth_missing', { path: 'headers.authorization', ...(missing ? { message: missing } : {}) }));
    const found = keys.match(key);
    if (!found) return next(new ApiError('auth_invalid', { path }));
    if (found.revoked) return next(new ApiError('key_revoked', { path }));
    const { grant } = found;
    if (!roles.includes(grant.role)) {
      return next(
        new ApiError('forbidden_role', {
          message: `This operation needs a key of role ${needed}; the key has role '${grant.role}'.`,
          path,
        }),
      );
    }
    keys.used(grant);
    req.grant = grant;
    next();
  };
}

export function grantOf(req: Request): KeyGrant {
  if (!req.grant) throw new Error('route is missing requireKey()');
  return req.grant;
}
