import * as crypto from 'node:crypto';

/**
 * SHA-256 as hex, one-shot where Node has it (`crypto.hash`, Node ≥ 20.12): the hot paths hash small
 * inputs (an API key per request, an event per event id), and creating a Hash object per call costs
 * more than the hashing. Same digest as createHash('sha256').update(s).digest('hex').
 */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;
export const sha256Hex: (s: string) => string =
  typeof oneShot === 'function' ? (s) => oneShot('sha256', s, 'hex') : (s) => crypto.createHash('sha256').update(s).digest('hex');
