import { createHmac } from 'node:crypto';
import type { Bus } from '../ports/bus';
import { topics } from '../topics';

/** The kinds of person an erasure names and a suppression refuses: the app's user, or a patient named in events. */
export const ERASABLE_KINDS = ['user', 'patient'] as const;
export type ErasableKind = (typeof ERASABLE_KINDS)[number];

/**
 * The keyed hash an erasure request and a suppression are stored by: HMAC-SHA256 over app, kind and
 * id with the deployment's PRIVACY_HASH_KEY, so the stored value names no one to whoever lacks the
 * key (a plain hash of a short id is reversed by trying ids), and the same person in another app
 * hashes differently. Here, shared, because every service must compute the same hash to find a
 * suppression.
 */
export const idHash = (key: string, appId: string, kind: ErasableKind, id: string): string =>
  createHmac('sha256', key).update(`${appId}\u0000${kind}\u0000${id}`).digest('hex');

/** The key of a suppression on `privacy.suppressions`: app and hash (the kind is inside the hash). */
export const suppressionKey = (appId: string, hash: string): string => `${appId}:${hash}`;

/**
 * Who is suppressed, as every part of the platform knows it (docs/privacy.md, "Erasure and export"):
 * the compacted topic `privacy.suppressions` read whole from the beginning, then followed.
 */
export interface SuppressionSet {
  /** True when this person of this app is suppressed (as of the last message read). */
  has(appId: string, kind: ErasableKind, id: string): boolean;
  /** How many suppressions are held (for /metrics and tests). */
  size(): number;
  /** Resolves once every message on the topic when it was opened has been read. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The SuppressionSet on a bus: `follow` reads the topic without a consumer group (every replica of
 * every service holds the whole set; nothing is committed), keeps the keys whose latest value is not
 * a tombstone. Only keys are held: the key is the app and the keyed hash, all `has` needs.
 */
export async function followSuppressions(bus: Bus, hashKey: string): Promise<SuppressionSet> {
  const held = new Set<string>();
  const following = await bus.follow(topics.privacySuppressions, (key, value) => {
    if (value === null) held.delete(key);
    else held.add(key);
  });
  return {
    has: (appId, kind, id) => held.has(suppressionKey(appId, idHash(hashKey, appId, kind, id))),
    size: () => held.size,
    ready: () => following.caughtUp,
    close: () => following.stop(),
  };
}
