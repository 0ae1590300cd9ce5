import { SignJWT, exportJWK, generateKeyPair, type KeyLike } from 'jose';

export interface UserTokenClaims {
  sub: string;
  aud: string;
  /** Seconds since the epoch. */
  iat: number;
  exp: number;
  nbf?: number;
}

/**
 * A user token as an app's server signs one (docs/keys.md, "User tokens"): HS256 with a shared secret
 * (a string) or ES256 with a private key. Tests and tools only; the platform verifies, never signs.
 */
export function signUserToken(claims: UserTokenClaims, key: { kid: string; secret: string } | { kid: string; privateKey: KeyLike }): Promise<string> {
  const jwt = new SignJWT({ ...claims });
  return 'secret' in key
    ? jwt.setProtectedHeader({ alg: 'HS256', kid: key.kid, typ: 'JWT' }).sign(new TextEncoder().encode(key.secret))
    : jwt.setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' }).sign(key.privateKey);
}

/** An ES256 key pair as an app's server holds it: the private key to sign, the public JWK for the keys file. */
export async function es256UserTokenKeys(): Promise<{ privateKey: KeyLike; jwk: { kty: 'EC'; crv: 'P-256'; x: string; y: string } }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { privateKey, jwk: (await exportJWK(publicKey)) as { kty: 'EC'; crv: 'P-256'; x: string; y: string } };
}
