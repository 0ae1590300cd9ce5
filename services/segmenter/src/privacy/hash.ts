import { createHmac } from 'node:crypto';
import type { IdKind } from './targets';

/**
 * The keyed hash a request and a suppression are stored by: HMAC-SHA256 over app, kind and id with
 * the deployment's PRIVACY_HASH_KEY, so the stored value names no one to whoever lacks the key
 * (a plain hash of a short id is reversed by trying ids), and the same person in another app hashes
 * differently.
 */
export const idHash = (key: string, appId: string, kind: IdKind, id: string): string =>
  createHmac('sha256', key).update(`${appId}\u0000${kind}\u0000${id}`).digest('hex');
