import { decodeProtectedHeader, errors, importJWK, jwtVerify, type JWK, type KeyLike } from 'jose';
import type { KeyRing, UserTokenKeyEntry } from '@evp/core';

/** Clock skew tolerated on exp, nbf and iat: the app's server and ours need not agree to the second. */
export const USER_TOKEN_CLOCK_SKEW_S = 5;
/** Longest lifetime (exp − iat) a user token may have: a leaked token must die within a day. */
export const USER_TOKEN_MAX_LIFETIME_S = 24 * 60 * 60;
/** Longer than any JWS of a few claims signed with ES256 or HS256; a longer string is refused unread. */
export const USER_TOKEN_MAX_CHARS = 4096;

/** What a token says of its holder: checked against the app's keys, not yet against a user id. */
export type UserTokenCheck = { outcome: 'valid'; sub: string } | { outcome: 'invalid' | 'expired'; message: string };

const invalid = (message: string): UserTokenCheck => ({ outcome: 'invalid', message });

/** Checks one token of an app against the ring's keys as of `now`. */
export type UserTokenVerifier = (ring: KeyRing, appId: string, token: string, now?: () => number) => Promise<UserTokenCheck>;

/**
 * A user token verifier (one per composition root: it owns its caches of imported keys and of tokens
 * already verified). It verifies a user token of the app (docs/keys.md, "User tokens") with jose: the header's kid names one
 * of the app's user_token keys, the algorithm is that key's and no other (so `none` and an HS256
 * token made with an ES256 public key as its secret are refused), aud is the app, sub, exp and iat
 * are present, the lifetime is at most 24 h, and exp/nbf/iat hold within USER_TOKEN_CLOCK_SKEW_S.
 */
export function createUserTokenVerifier(): UserTokenVerifier {
  /** Imported keys by file entry: a reload makes new entries, so a replaced or revoked key is never reused. */
  const imported = new WeakMap<UserTokenKeyEntry, Promise<KeyLike | Uint8Array>>();

  function keyOf(entry: UserTokenKeyEntry): Promise<KeyLike | Uint8Array> {
    let key = imported.get(entry);
    if (!key) {
      key = entry.alg === 'ES256' ? importJWK(entry.jwk as JWK, 'ES256') : Promise.resolve(new TextEncoder().encode(entry.key));
      imported.set(entry, key);
    }
    return key;
  }

  /**
   * Tokens already verified, per signing key entry: a client sends one token with every upload until it
   * renews it, and an ES256 verification costs ~280 µs of a gateway's CPU per request (docs/benchmarks.md).
   * Only valid tokens are kept, until their exp; a reload makes new entries (so a changed or removed key
   * drops its tokens), and revocation is checked before the cache. Bounded: a full map starts over.
   */
  const verified = new WeakMap<UserTokenKeyEntry, Map<string, { sub: string; fromMs: number; untilMs: number }>>();
  const MAX_CACHED_PER_KEY = 10_000;

  function remember(entry: UserTokenKeyEntry, token: string, sub: string, claims: { iat: number; exp: number; nbf?: number }): void {
    let tokens = verified.get(entry);
    if (!tokens) verified.set(entry, (tokens = new Map()));
    if (tokens.size >= MAX_CACHED_PER_KEY) tokens.clear();
    const from = Math.max(claims.iat, claims.nbf ?? claims.iat) - USER_TOKEN_CLOCK_SKEW_S;
    tokens.set(token, { sub, fromMs: from * 1000, untilMs: (claims.exp + USER_TOKEN_CLOCK_SKEW_S) * 1000 });
  }

  return async function verifyUserToken(ring: KeyRing, appId: string, token: string, now: () => number = Date.now): Promise<UserTokenCheck> {
    if (token.length > USER_TOKEN_MAX_CHARS) return invalid(`the token is longer than ${USER_TOKEN_MAX_CHARS} characters`);
    let kid: unknown;
    let alg: unknown;
    try {
      ({ kid, alg } = decodeProtectedHeader(token));
    } catch {
      return invalid('the token is not a compact JWS');
    }
    if (typeof kid !== 'string') return invalid('the token header names no kid');
    const held = ring.userTokenKey(appId, kid);
    if (!held) return invalid(`kid ${JSON.stringify(kid.slice(0, 64))} is not a user_token key of this app`);
    if (held.revokedFrom !== undefined && held.revokedFrom <= now()) return invalid(`kid ${kid} was revoked`);
    if (alg !== held.entry.alg) return invalid(`kid ${kid} signs with ${held.entry.alg}, not ${String(alg).slice(0, 16)}`);
    const seen = verified.get(held.entry)?.get(token);
    if (seen !== undefined && seen.fromMs <= now() && now() < seen.untilMs) return { outcome: 'valid', sub: seen.sub };
    try {
      const { payload } = await jwtVerify(token, await keyOf(held.entry), {
        algorithms: [held.entry.alg],
        audience: appId,
        requiredClaims: ['sub', 'exp', 'iat'],
        clockTolerance: USER_TOKEN_CLOCK_SKEW_S,
        // Also refuses an iat in the future (beyond the skew): a token is not made ahead of its use.
        maxTokenAge: USER_TOKEN_MAX_LIFETIME_S,
        currentDate: new Date(now()),
      });
      const { sub, exp, iat, nbf } = payload as { sub: unknown; exp: number; iat: number; nbf?: number };
      if (typeof sub !== 'string' || sub === '') return invalid('sub is not a user id');
      if (exp - iat > USER_TOKEN_MAX_LIFETIME_S) return invalid(`the token lives ${exp - iat} s; at most ${USER_TOKEN_MAX_LIFETIME_S} s are accepted`);
      remember(held.entry, token, sub, { iat, exp, ...(nbf === undefined ? {} : { nbf }) });
      return { outcome: 'valid', sub };
    } catch (err) {
      if (err instanceof errors.JWTExpired) return { outcome: 'expired', message: 'the token has expired' };
      if (err instanceof errors.JOSEError) return invalid(err.message);
      throw err;
    }
  };
}
