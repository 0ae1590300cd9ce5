import type { NextFunction, Request, Response } from 'express';
import { ApiError, type KeyGrant, type KeyRing, type Role } from '@evp/core';

declare module 'express-serve-static-core' {
  interface Request {
    grant?: KeyGrant;
    requestId?: string;
  }
}

/** Reads `Authorization: Bearer <key>`; the key alone decides the app, never the body. `role` may list several. */
export function requireKey(keys: KeyRing, role: Role | readonly Role[]) {
  const roles: readonly Role[] = typeof role === 'string' ? [role] : role;
  const needed = roles.map((r) => `'${r}'`).join(' or ');
  return (req: Request, _res: Response, next: NextFunction) => {
    const header = req.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) return next(new ApiError('auth_missing', { path: 'headers.authorization' }));
    const grant = keys.lookup(match[1] as string);
    if (!grant) return next(new ApiError('auth_invalid', { path: 'headers.authorization' }));
    if (!roles.includes(grant.role)) {
      return next(
        new ApiError('forbidden_role', {
          message: `This operation needs a key of role ${needed}; the key has role '${grant.role}'.`,
          path: 'headers.authorization',
        }),
      );
    }
    req.grant = grant;
    next();
  };
}

export function grantOf(req: Request): KeyGrant {
  if (!req.grant) throw new Error('route is missing requireKey()');
  return req.grant;
}
