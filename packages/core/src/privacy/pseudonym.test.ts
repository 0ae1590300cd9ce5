import { PSEUDONYM_PATTERN, pseudonymLength, pseudonymise } from './pseudonym';

/**
 * Golden values, computed once outside this code with openssl (the key's text is the HMAC key, the
 * first 16 bytes of the MAC in base64url without padding):
 *   printf '%s' PAT-0042 | openssl dgst -sha256 -hmac '<key>' -binary | head -c 16 | basenc --base64url | tr -d =
 */
const KEY_DEMO_V1 = 'demo-app pseudonym key v1, 32 bytes!!';
const KEY_DEMO_V2 = 'demo-app pseudonym key v2, 32 bytes!!';
const KEY_OTHER_V1 = 'other-app pseudonym key v1, 32 bytes!';

describe('pseudonymise', () => {
  it('gives the golden HMAC per app and key version', () => {
    expect(pseudonymise(KEY_DEMO_V1, 1, 'PAT-0042')).toBe('p1:JBzJmddArzd_3Jmbb6r8bw');
    expect(pseudonymise(KEY_DEMO_V2, 2, 'PAT-0042')).toBe('p2:qbISYRNCd_-PmYAaNHc6iA');
    expect(pseudonymise(KEY_OTHER_V1, 1, 'PAT-0042')).toBe('p1:-G20mZapxjIFAijFd_do8A');
  });

  it('maps equal inputs to equal outputs, and different ones apart', () => {
    expect(pseudonymise(KEY_DEMO_V1, 1, 'PAT-0042')).toBe(pseudonymise(KEY_DEMO_V1, 1, 'PAT-0042'));
    expect(pseudonymise(KEY_DEMO_V1, 1, 'PAT-0043')).not.toBe(pseudonymise(KEY_DEMO_V1, 1, 'PAT-0042'));
  });

  it('has the documented shape and length', () => {
    for (const v of [1, 9, 10, 999]) {
      const p = pseudonymise(KEY_DEMO_V1, v, 'é – any text');
      expect(p).toMatch(PSEUDONYM_PATTERN);
      expect(p).toHaveLength(pseudonymLength(v));
    }
    expect(pseudonymLength(1)).toBe(25);
  });
});
