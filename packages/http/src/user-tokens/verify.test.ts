import { SignJWT, exportJWK, generateKeyPair, type JWK, type KeyLike } from 'jose';
import { KeyRing, type KeysFile } from '@evp/core';
import { USER_TOKEN_CLOCK_SKEW_S, createUserTokenVerifier } from './verify';

// One verifier for the file, as a service has one: the cache test below relies on it.
const verifyUserToken = createUserTokenVerifier();

const APP = 'demo-app';
const SECRET = 'a-shared-secret-of-at-least-32-bytes!';
const T0 = Date.parse('2026-11-28T12:00:00Z');
const s = (ms: number) => Math.floor(ms / 1000);

let es: { privateKey: KeyLike; publicKey: KeyLike };
let esJwk: JWK;

beforeAll(async () => {
  es = await generateKeyPair('ES256');
  esJwk = await exportJWK(es.publicKey);
});

function file(extra: Partial<Record<'hsRevokedAt', string>> = {}): KeysFile {
  return {
    keys: [
      { id: 'sdk', app_id: APP, role: 'sdk', key: 'sdk_key_of_the_demo_app' },
      { id: 'hs-1', app_id: APP, role: 'user_token', alg: 'HS256', key: SECRET, ...(extra.hsRevokedAt ? { revoked_at: extra.hsRevokedAt } : {}) },
      { id: 'es-1', app_id: APP, role: 'user_token', alg: 'ES256', jwk: esJwk as { kty: 'EC'; crv: 'P-256'; x: string; y: string } },
      { id: 'other-hs', app_id: 'other-app', role: 'user_token', alg: 'HS256', key: SECRET },
    ],
    apps: { [APP]: { user_tokens: 'enforce' } },
  };
}

interface Claims {
  sub?: string;
  aud?: string;
  iat?: number;
  exp?: number;
  nbf?: number;
}
const defaults = (): Claims => ({ sub: 'u-1', aud: APP, iat: s(T0), exp: s(T0) + 600 });

async function hs(claims: Claims = defaults(), kid = 'hs-1', secret = SECRET): Promise<string> {
  return new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS256', kid }).sign(new TextEncoder().encode(secret));
}
async function ecToken(claims: Claims = defaults(), kid = 'es-1'): Promise<string> {
  return new SignJWT({ ...claims }).setProtectedHeader({ alg: 'ES256', kid }).sign(es.privateKey);
}

const verify = (ring: KeyRing, token: string, at = T0, app = APP) => verifyUserToken(ring, app, token, () => at);

describe('verifyUserToken', () => {
  let ring: KeyRing;
  beforeEach(() => (ring = new KeyRing(file())));

  it('accepts an HS256 and an ES256 token of the app and gives their sub', async () => {
    expect(await verify(ring, await hs())).toEqual({ outcome: 'valid', sub: 'u-1' });
    expect(await verify(ring, await ecToken())).toEqual({ outcome: 'valid', sub: 'u-1' });
  });

  it('refuses a wrong signature, an unknown kid, another app (aud) and another app’s kid', async () => {
    expect(await verify(ring, await hs(defaults(), 'hs-1', 'another-secret-of-at-least-32-bytes!!'))).toMatchObject({ outcome: 'invalid' });
    expect(await verify(ring, await hs(defaults(), 'nope'))).toEqual({ outcome: 'invalid', message: 'kid "nope" is not a user_token key of this app' });
    expect(await verify(ring, await hs({ ...defaults(), aud: 'other-app' }))).toEqual({ outcome: 'invalid', message: 'unexpected "aud" claim value' });
    expect(await verify(ring, await hs(defaults(), 'other-hs'))).toMatchObject({
      outcome: 'invalid',
      message: 'kid "other-hs" is not a user_token key of this app',
    });
  });

  it('refuses alg none, an algorithm other than the kid’s, and HS256 signed with the ES256 public key as its secret', async () => {
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const none = `${b64({ alg: 'none', kid: 'hs-1' })}.${b64(defaults())}.`;
    expect(await verify(ring, none)).toEqual({ outcome: 'invalid', message: 'kid hs-1 signs with HS256, not none' });
    // Alg confusion: the public JWK (known to anyone) used as an HMAC secret under the ES256 kid.
    const confused = await hs(defaults(), 'es-1', JSON.stringify(esJwk));
    expect(await verify(ring, confused)).toEqual({ outcome: 'invalid', message: 'kid es-1 signs with ES256, not HS256' });
    const esUnderHsKid = await ecToken(defaults(), 'hs-1');
    expect(await verify(ring, esUnderHsKid)).toEqual({ outcome: 'invalid', message: 'kid hs-1 signs with HS256, not ES256' });
  });

  it('refuses what is not a JWS, a token without kid, missing claims, a lifetime over 24 h, and a huge token unread', async () => {
    expect(await verify(ring, 'not.a.jwt')).toEqual({ outcome: 'invalid', message: 'the token is not a compact JWS' });
    const noKid = await new SignJWT({ ...defaults() }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));
    expect(await verify(ring, noKid)).toEqual({ outcome: 'invalid', message: 'the token header names no kid' });
    const { exp: _exp, ...noExp } = defaults();
    expect(await verify(ring, await hs(noExp))).toEqual({ outcome: 'invalid', message: 'missing required "exp" claim' });
    const { sub: _sub, ...noSub } = defaults();
    expect(await verify(ring, await hs(noSub))).toEqual({ outcome: 'invalid', message: 'missing required "sub" claim' });
    expect(await verify(ring, await hs({ ...defaults(), exp: s(T0) + 24 * 3600 + 1 }))).toEqual({
      outcome: 'invalid',
      message: 'the token lives 86401 s; at most 86400 s are accepted',
    });
    expect(await verify(ring, `${await hs()}${'A'.repeat(5000)}`)).toEqual({ outcome: 'invalid', message: 'the token is longer than 4096 characters' });
  });

  it('refuses an expired token and one not valid yet, allowing a few seconds of clock skew', async () => {
    const token = await hs(); // exp = T0 + 600 s
    expect(await verify(ring, token, T0 + 600_000 + (USER_TOKEN_CLOCK_SKEW_S - 1) * 1000)).toEqual({ outcome: 'valid', sub: 'u-1' });
    expect(await verify(ring, token, T0 + 600_000 + USER_TOKEN_CLOCK_SKEW_S * 1000)).toEqual({ outcome: 'expired', message: 'the token has expired' });
    // Issued by a server whose clock is ahead: within the skew it is fine, beyond it not.
    expect(await verify(ring, token, T0 - (USER_TOKEN_CLOCK_SKEW_S - 1) * 1000)).toMatchObject({ outcome: 'valid' });
    expect(await verify(ring, token, T0 - (USER_TOKEN_CLOCK_SKEW_S + 2) * 1000)).toMatchObject({
      outcome: 'invalid',
      message: expect.stringContaining('"iat"'),
    });
    const later = await hs({ ...defaults(), nbf: s(T0) + 60 });
    expect(await verify(ring, later)).toEqual({ outcome: 'invalid', message: '"nbf" claim timestamp check failed' });
  });

  it('rotates: two kids side by side both verify; a revoked kid is refused from its instant, and a reload applies it', async () => {
    const old = await hs();
    const fresh = await ecToken();
    const revokeAt = new Date(T0 + 1000).toISOString();
    ring.replace(file({ hsRevokedAt: revokeAt }));
    expect(await verify(ring, old, T0)).toMatchObject({ outcome: 'valid' });
    expect(await verify(ring, old, T0 + 1000)).toEqual({ outcome: 'invalid', message: 'kid hs-1 was revoked' });
    expect(await verify(ring, fresh, T0 + 1000)).toMatchObject({ outcome: 'valid' });
    const { keys, apps } = file();
    ring.replace({ keys: keys.filter((k) => k.id !== 'hs-1'), apps });
    expect(await verify(ring, old)).toMatchObject({ outcome: 'invalid', message: 'kid "hs-1" is not a user_token key of this app' });
  });

  it('reads the policy per app from the file, off by default, and a reload changes it', () => {
    expect(ring.userTokenPolicy(APP)).toBe('enforce');
    expect(ring.userTokenPolicy('other-app')).toBe('off');
    ring.replace({ ...file(), apps: { [APP]: { user_tokens: 'report' } } });
    expect(ring.userTokenPolicy(APP)).toBe('report');
  });
});

describe('verifyUserToken: tokens already verified', () => {
  it('answers a repeated token from the cache until its exp, still refusing it once revoked or its key replaced', async () => {
    const ring = new KeyRing(file());
    const token = await ecToken();
    expect(await verify(ring, token)).toEqual({ outcome: 'valid', sub: 'u-1' });
    expect(await verify(ring, token, T0 + 1000)).toEqual({ outcome: 'valid', sub: 'u-1' });
    expect(await verify(ring, token, T0 + 600_000 + USER_TOKEN_CLOCK_SKEW_S * 1000)).toEqual({ outcome: 'expired', message: 'the token has expired' });
    ring.replace(file({ hsRevokedAt: new Date(T0).toISOString() }));
    const hsToken = await hs();
    expect(await verify(ring, hsToken, T0 - 1000)).toMatchObject({ outcome: 'valid' });
    expect(await verify(ring, hsToken, T0)).toEqual({ outcome: 'invalid', message: 'kid hs-1 was revoked' });
    // The same kid with another secret after a reload: the cached verification is not reused.
    const { keys, apps } = file();
    ring.replace({ keys: keys.map((k) => (k.id === 'hs-1' ? { ...k, key: 'a-new-secret-of-at-least-32-bytes!!!!!' } : k)), apps });
    expect(await verify(ring, hsToken, T0 - 1000)).toMatchObject({ outcome: 'invalid', message: 'signature verification failed' });
  });
});
