import { createHmac } from 'node:crypto';

/** Bytes of the HMAC kept: 128 bits, far beyond any collision among an app's ids (docs/privacy.md). */
export const PSEUDONYM_HMAC_BYTES = 16;

/** A pseudonym's text: `p<version>:` then the truncated HMAC in base64url (22 characters). */
export const PSEUDONYM_PATTERN = /^p([1-9][0-9]{0,4}):([A-Za-z0-9_-]{22})$/;

/** Length of a pseudonym made with key `version`: 2 + its digits + 22 (25 for versions 1–9, 29 at most). */
export const pseudonymLength = (version: number): number => 2 + String(version).length + 22;

/**
 * The pseudonym of `value` under an app's key `secret` (its UTF-8 bytes are the HMAC key) of version
 * `version`: `p<version>:` + base64url(HMAC-SHA-256(secret, UTF-8 value)[0..16)). Deterministic:
 * equal values give equal pseudonyms under one key, so joins, segments and erasure (which computes
 * the same function from the keys file) find them. docs/privacy.md, "Pseudonyms", has the command
 * line that reproduces one with openssl.
 */
export function pseudonymise(secret: string, version: number, value: string): string {
  const mac = createHmac('sha256', secret).update(value, 'utf8').digest();
  return `p${version}:${mac.subarray(0, PSEUDONYM_HMAC_BYTES).toString('base64url')}`;
}
