import type { AnyKeyEntry } from '@evp/core';
import { es256UserTokenKeys, signUserToken } from '@evp/testkit';

/** An app of the fuzzed pipeline that enforces user tokens, so that every token sent is verified. */
export const ENFORCED_APP = 'fuzz-enforced';
export const ENFORCED_SDK_KEY = 'sdk_fuzz_enforced_0123456789';
const HS_SECRET = 'fuzz-hs256-secret-0123456789abcdef0123';

/**
 * The enforcing app's keys (an SDK key, an HS256 and an ES256 user_token key) and hostile tokens for
 * it: valid ones, forged (another secret), truncated, huge, `alg: none`, the alg confusion of
 * HS256 signed with the ES256 public key as its secret, a wrong aud, expired, and garbage.
 */
export async function fuzzUserTokens(): Promise<{ keys: AnyKeyEntry[]; tokens: string[] }> {
  const es = await es256UserTokenKeys();
  const jwk = es.jwk;
  const now = Math.floor(Date.now() / 1000);
  const claims = (sub: string, o: { aud?: string; exp?: number } = {}) => ({ sub, aud: o.aud ?? ENFORCED_APP, iat: now, exp: o.exp ?? now + 3600 });
  const hs = (sub: string, o = {}) => signUserToken(claims(sub, o), { kid: 'fuzz-hs', secret: HS_SECRET });
  const valid = await hs('u1');
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const tokens = [
    valid,
    await signUserToken(claims('u1'), { kid: 'fuzz-es', privateKey: es.privateKey }),
    await signUserToken(claims('u1'), { kid: 'fuzz-hs', secret: 'another-secret-0123456789abcdef01234' }),
    await signUserToken(claims('u1'), { kid: 'fuzz-es', secret: JSON.stringify(jwk) }),
    await signUserToken(claims('u1'), { kid: 'fuzz-es', secret: `${jwk.x}${jwk.y}` }),
    `${b64({ alg: 'none', kid: 'fuzz-hs' })}.${b64(claims('u1'))}.`,
    valid.slice(0, valid.length - 7),
    valid.slice(0, valid.indexOf('.') + 5),
    `${valid}${'A'.repeat(12_000)}`,
    `${b64({ alg: 'HS256', kid: 'k'.repeat(5000) })}.${b64(claims('u1'))}.x`,
    await hs('u1', { aud: 'e2e-app' }),
    await hs('u1', { exp: now - 3600 }),
    await hs('u2'),
    '....',
    'e30.e30.e30',
    '\u00ff\u00fe',
    '',
  ];
  const keys: AnyKeyEntry[] = [
    { id: 'fuzz-sdk', app_id: ENFORCED_APP, role: 'sdk', key: ENFORCED_SDK_KEY },
    { id: 'fuzz-hs', app_id: ENFORCED_APP, role: 'user_token', alg: 'HS256', key: HS_SECRET },
    { id: 'fuzz-es', app_id: ENFORCED_APP, role: 'user_token', alg: 'ES256', jwk },
  ];
  return { keys, tokens };
}
