import { SignJWT } from 'jose';

/** How long a demo token lives: an hour, as docs/keys.md advises an app's server (24 h is the most accepted). */
const DEMO_TOKEN_SECONDS = 3600;

/** A user id the demo signs for: what a shop's login would have checked (no `anon:` id, no oddities). */
const DEMO_USER_ID = /^[A-Za-z0-9._@-]{1,128}$/;

/**
 * The demo shop's own server side of user tokens (docs/keys.md, "User tokens"): it signs, for the
 * user its page says signed in, with the app's HS256 `user_token` key that `npm start` wrote into the
 * keys file. A real shop signs only for the user its own login proved; the demo has no passwords.
 */
export async function demoUserToken(
  key: { kid: string; secret: string },
  appId: string,
  userId: string,
  nowMs: number,
): Promise<{ token: string; expires_at: string } | undefined> {
  if (!DEMO_USER_ID.test(userId)) return undefined;
  const iat = Math.floor(nowMs / 1000);
  const exp = iat + DEMO_TOKEN_SECONDS;
  const token = await new SignJWT({ sub: userId, aud: appId, iat, exp })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: key.kid })
    .sign(new TextEncoder().encode(key.secret));
  return { token, expires_at: new Date(exp * 1000).toISOString() };
}
