import type { Request, Router } from 'express';
import type { KeyRing } from '@evp/core';
import { grantOf, requireKey } from '@evp/http';
import type { KeysAnswer } from './answers';

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

/**
 * GET /v1/keys (docs/keys.md#listing-an-apps-keys), API key only and for the key's own app: the
 * list tells which keys exist, which an SDK key (public, in every app binary) must not read.
 */
export function keyRoutes(router: Router, keys: KeyRing, guarded: <T>(req: Request, op: () => Promise<T>) => Promise<T>): void {
  router.get('/v1/keys', requireKey(keys, 'api'), async (req, res) => {
    const { appId } = grantOf(req);
    const answer: KeysAnswer = { app_id: appId, data: await guarded(req, () => keysListing(keys, appId)) };
    res.status(200).json(answer);
  });
}
