import type { Request, Router } from 'express';
import type { KeyRing, UserTokenOutcomeCounts, UserTokenPolicy } from '@evp/core';
import { grantOf, requireKey } from '@evp/http';
import type { KeysAnswer, UserTokensAnswer } from './answers';

/** One key as the API shows it: never the key or its digest. */
export interface KeyView {
  id: string;
  role: string;
  created_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

/** The app's keys by id with their last use (shared by every replica within its flush interval). */
async function keysListing(keys: KeyRing, appId: string): Promise<KeyView[]> {
  const lastUsed = await keys.usage.lastUsed(appId);
  return keys.keysOf(appId).map((k) => {
    const at = lastUsed.get(k.id);
    return {
      id: k.id,
      role: k.role,
      created_at: k.createdAt ?? null,
      revoked_at: k.revokedAt ?? null,
      last_used_at: at === undefined ? null : new Date(at).toISOString(),
    };
  });
}

/** A user token signing key as the API shows it: its kid, alg and dates, never the HS256 secret or the JWK. */
export interface UserTokenKeyView {
  id: string;
  alg: string;
  created_at: string | null;
  revoked_at: string | null;
}

/** The app's user token policy, signing keys and the last hour's outcomes (every replica's, within its flush interval). */
export interface UserTokensOverview {
  app_id: string;
  policy: UserTokenPolicy;
  keys: UserTokenKeyView[];
  last_hour: UserTokenOutcomeCounts;
}

async function userTokensOverview(keys: KeyRing, appId: string): Promise<UserTokensOverview> {
  const last_hour = await keys.tokenOutcomes.lastHour(appId);
  const listed = keys
    .userTokenKeysOf(appId)
    // Chosen fields only: the entry's `key` (HS256 secret) and `jwk` never reach the answer.
    .map(({ entry: e }) => ({ id: e.id, alg: e.alg, created_at: e.created_at ?? null, revoked_at: e.revoked_at ?? null }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { app_id: appId, policy: keys.userTokenPolicy(appId), keys: listed, last_hour };
}

/**
 * GET /v1/keys (docs/keys.md#listing-an-apps-keys) and GET /v1/keys/user-tokens, API key only and for the key's own app: the
 * list tells which keys exist, which an SDK key (public, in every app binary) must not read.
 */
export function keyRoutes(router: Router, keys: KeyRing, guarded: <T>(req: Request, op: () => Promise<T>) => Promise<T>): void {
  router.get('/v1/keys', requireKey(keys, 'api'), async (req, res) => {
    const { appId } = grantOf(req);
    const answer: KeysAnswer = { app_id: appId, data: await guarded(req, () => keysListing(keys, appId)) };
    res.status(200).json(answer);
  });
  // docs/keys.md#user-tokens: what switching the app to enforce would refuse, before it is switched.
  router.get('/v1/keys/user-tokens', requireKey(keys, 'api'), async (req, res) => {
    const { appId } = grantOf(req);
    const answer: UserTokensAnswer = await guarded(req, () => userTokensOverview(keys, appId));
    res.status(200).json(answer);
  });
}
