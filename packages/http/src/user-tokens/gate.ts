import type { NextFunction, Request, Response } from 'express';
import { isAnonymousUserId } from '@evp/contract';
import { ApiError, type ErrorCode, type KeyRing, type UserTokenOutcome, type UserTokenPolicy } from '@evp/core';
import type { Registry } from 'prom-client';
import { grantOf } from '../auth';
import { createUserTokenMetrics } from '../metrics';
import { createUserTokenVerifier, type UserTokenCheck } from './verify';

/** The header an SDK-key call carries its user token in, and the query parameter a beacon uses instead. */
export const USER_TOKEN_HEADER = 'x-evp-user-token';
export const USER_TOKEN_PARAM = 'user_token';

/** What a request's token says, under the app's policy; absent under `off` (nothing is read). */
export interface RequestUserToken {
  policy: Exclude<UserTokenPolicy, 'off'>;
  /** undefined: no token was sent. */
  check: UserTokenCheck | undefined;
}

declare module 'express-serve-static-core' {
  interface Request {
    userToken?: RequestUserToken;
  }
}

/** The outcomes (core's USER_TOKEN_OUTCOMES) enforce refuses. */
export type RefusedUserTokenOutcome = Exclude<UserTokenOutcome, 'valid' | 'anonymous'>;
export type { UserTokenOutcome };

const CODES: Record<RefusedUserTokenOutcome, ErrorCode> = {
  required: 'user_token_required',
  invalid: 'user_token_invalid',
  expired: 'user_token_expired',
  mismatch: 'user_token_mismatch',
};

/** The outcome of a request's token for `userId`. */
export function userTokenOutcome(token: RequestUserToken, userId: string): UserTokenOutcome {
  if (isAnonymousUserId(userId)) return 'anonymous';
  const c = token.check;
  if (c === undefined) return 'required';
  if (c.outcome !== 'valid') return c.outcome;
  return c.sub === userId ? 'valid' : 'mismatch';
}

/** The 401/403 enforce answers an outcome with (not for `valid`). */
export function userTokenError(outcome: RefusedUserTokenOutcome, token: RequestUserToken | undefined): ApiError {
  const c = token?.check;
  const message = c !== undefined && c.outcome !== 'valid' ? `The user token is not accepted: ${c.message}.` : undefined;
  return new ApiError(CODES[outcome], { path: `headers.${USER_TOKEN_HEADER}`, ...(message ? { message } : {}) });
}

/** The token of a raw URL's query (a beacon cannot set headers); only read when there is no header. */
function tokenInQuery(url: string): string | undefined {
  const q = url.indexOf('?');
  if (q < 0 || !url.includes(USER_TOKEN_PARAM, q)) return undefined;
  return new URLSearchParams(url.slice(q + 1)).get(USER_TOKEN_PARAM) ?? undefined;
}

export interface UserTokens {
  /**
   * Middleware after requireKey: under the app's report or enforce policy, verifies the token sent
   * (header, else `?user_token=`) and sets `req.userToken`; under off it reads nothing, so an app
   * that never turned tokens on pays nothing.
   */
  read: (req: Request, res: Response, next: NextFunction) => void;
  /**
   * A user-scoped call for `userId`: counts the outcome, and under enforce throws the answer for any
   * outcome but valid. Under report the call goes on (the count says what enforce would refuse).
   */
  requireFor(req: Request, userId: string): UserTokenOutcome | undefined;
  /**
   * Counts one outcome of the app (the gateway counts an upload once, after reading its users): in
   * user_tokens_total and in the ring's last-hour counts (held in memory, flushed in the background).
   */
  count(appId: string, outcome: UserTokenOutcome): void;
}

export function userTokens(keys: KeyRing, registry: Registry, now: () => number = Date.now): UserTokens {
  const { checks } = createUserTokenMetrics(registry);
  const verifyUserToken = createUserTokenVerifier();
  const count = (appId: string, outcome: UserTokenOutcome) => {
    checks.inc({ app: appId, outcome });
    keys.tokenOutcomes.record(appId, outcome);
  };
  return {
    count,
    read(req, _res, next) {
      const { appId } = grantOf(req);
      const policy = keys.userTokenPolicy(appId);
      if (policy === 'off') return next();
      const header = req.headers[USER_TOKEN_HEADER];
      const token = typeof header === 'string' ? header.trim() : tokenInQuery(req.url);
      if (token === undefined || token === '') {
        req.userToken = { policy, check: undefined };
        return next();
      }
      verifyUserToken(keys, appId, token, now).then(
        (check) => {
          req.userToken = { policy, check };
          next();
        },
        (err: unknown) => next(err),
      );
    },
    requireFor(req, userId) {
      const token = req.userToken;
      if (token === undefined) return undefined;
      const outcome = userTokenOutcome(token, userId);
      count(grantOf(req).appId, outcome);
      if (outcome !== 'valid' && outcome !== 'anonymous' && token.policy === 'enforce') throw userTokenError(outcome, token);
      return outcome;
    },
  };
}
