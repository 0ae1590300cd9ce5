import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { appPrivacySchema, pseudonymisesAny, resolvePrivacy } from '../privacy';
import { retentionSettings } from './retention';

/**
 * Keys file: each key maps to one app and one role. An `sdk` key is public (shipped in apps): it may
 * ingest for its app and fetch actions for one user. An `api` key is secret (partner side): it may
 * create actions and bulk-pull for its app. An `analyst` key is secret and read-only: it may only run
 * SELECT queries over its app's rows on the ClickHouse HTTP interface (docs/analytics.md).
 * The file may hold the key itself or its SHA-256 hex. Services reload it when it changes (docs/keys.md).
 */
export const ROLES = ['sdk', 'api', 'analyst'] as const;
export type Role = (typeof ROLES)[number];

/** An instant as written in the file: an ISO 8601 date-time with its offset. */
const instant = z.string().datetime({ offset: true });

const appId = z
  .string()
  .min(1)
  .regex(/^[A-Za-z0-9._-]+$/, 'app_id may hold letters, digits, . _ -');

const keyEntry = z.object({
  id: z.string().min(1),
  app_id: appId,
  role: z.enum(ROLES),
  key: z.string().min(16).optional(),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  /** When the key was issued (shown in the console); optional. */
  created_at: instant.optional(),
  /** From this instant on the key is refused with `key_revoked`; it stays listed so the app sees what happened. */
  revoked_at: instant.optional(),
});

/** The algorithms a user token may be signed with: one per kid, named in the file (docs/keys.md, "User tokens"). */
export const USER_TOKEN_ALGS = ['ES256', 'HS256'] as const;
export type UserTokenAlg = (typeof USER_TOKEN_ALGS)[number];

/** HS256 secrets shorter than the hash's output are guessable (RFC 7518 3.2 asks for at least 256 bits). */
export const MIN_HS256_KEY_BYTES = 32;

/**
 * A key the app's own server signs user tokens with; `id` is the token header's `kid`. ES256: the
 * public key as a JWK (the file never holds the private key); HS256: the shared secret itself.
 */
const userTokenEntry = z.object({
  id: z.string().min(1),
  app_id: appId,
  role: z.literal('user_token'),
  alg: z.enum(USER_TOKEN_ALGS),
  jwk: z
    .object({ kty: z.literal('EC'), crv: z.literal('P-256'), x: z.string().min(1), y: z.string().min(1) })
    .passthrough()
    .refine((j) => !('d' in j), 'jwk must be the public key: a private key (d) never goes in the keys file')
    .optional(),
  key: z.string().optional(),
  created_at: instant.optional(),
  /** From this instant on, tokens signed with this kid are refused (`user_token_invalid`). */
  revoked_at: instant.optional(),
});

const entry = z.discriminatedUnion('role', [keyEntry, userTokenEntry]).superRefine((e, ctx) => {
  if (e.role !== 'user_token') {
    if ((e.key === undefined) === (e.sha256 === undefined)) ctx.addIssue({ code: 'custom', message: 'give exactly one of key and sha256' });
  } else if (e.alg === 'ES256') {
    if (e.jwk === undefined || e.key !== undefined)
      ctx.addIssue({ code: 'custom', message: 'an ES256 user_token key gives the public key as jwk, and no key' });
  } else if (e.key === undefined || e.jwk !== undefined || Buffer.byteLength(e.key) < MIN_HS256_KEY_BYTES) {
    ctx.addIssue({ code: 'custom', message: `an HS256 user_token key gives key (at least ${MIN_HS256_KEY_BYTES} bytes), and no jwk` });
  }
});

/** Per app: whether SDK-key calls need a user token (docs/keys.md, "User tokens"). Absent: off. */
export const USER_TOKEN_POLICIES = ['off', 'report', 'enforce'] as const;
export type UserTokenPolicy = (typeof USER_TOKEN_POLICIES)[number];

/**
 * Per app: `user_tokens` (docs/keys.md), `retention` per class of data (docs/privacy.md, "Retention")
 * and `privacy`, what is kept, pseudonymised or dropped per privacy class (docs/privacy.md).
 */
const appSettings = z.object({
  user_tokens: z.enum(USER_TOKEN_POLICIES).optional(),
  retention: retentionSettings.optional(),
  privacy: appPrivacySchema.optional(),
});

/** An HMAC key shorter than SHA-256's output weakens it (RFC 2104 §3): at least 32 bytes. */
export const MIN_PSEUDONYM_KEY_BYTES = 32;

/**
 * An app's pseudonym key (docs/privacy.md, "Pseudonyms"): the newest version pseudonymises new rows;
 * older versions stay listed so erasure can still compute the pseudonyms of rows made with them.
 * The key is a secret: never logged, never shown (errors name its path only).
 */
const pseudonymKeyEntry = z
  .object({
    app_id: appId,
    version: z.number().int().min(1).max(99_999),
    key: z.string().refine((k) => Buffer.byteLength(k) >= MIN_PSEUDONYM_KEY_BYTES, `at least ${MIN_PSEUDONYM_KEY_BYTES} bytes`),
    created_at: instant.optional(),
  })
  .strict();

export const keysFileSchema = z
  .object({ keys: z.array(entry).min(1), apps: z.record(appId, appSettings).optional(), pseudonym_keys: z.array(pseudonymKeyEntry).optional() })
  .superRefine((f, ctx) => {
    const seen = new Set<string>();
    for (const [i, k] of (f.pseudonym_keys ?? []).entries()) {
      const id = `${k.app_id}@${k.version}`;
      if (seen.has(id))
        ctx.addIssue({ code: 'custom', path: ['pseudonym_keys', i], message: `app ${k.app_id} has two pseudonym keys of version ${k.version}` });
      seen.add(id);
    }
    for (const [app, settings] of Object.entries(f.apps ?? {})) {
      const keyed = (f.pseudonym_keys ?? []).some((k) => k.app_id === app);
      if (!keyed && pseudonymisesAny(resolvePrivacy(settings.privacy)))
        ctx.addIssue({ code: 'custom', path: ['apps', app, 'privacy'], message: `pseudonymises a class but app ${app} has no pseudonym_keys entry` });
    }
  });
export type KeysFile = z.infer<typeof keysFileSchema>;
export type AnyKeyEntry = KeysFile['keys'][number];
/** A bearer key (sdk, api, analyst). */
export type KeyEntry = Exclude<AnyKeyEntry, { role: 'user_token' }>;
/** A pseudonym key of an app, one version. */
export type PseudonymKeyEntry = NonNullable<KeysFile['pseudonym_keys']>[number];
/** A key user tokens are signed with. */
export type UserTokenKeyEntry = Extract<AnyKeyEntry, { role: 'user_token' }>;

/** A keys file's text, checked whole: any problem names the file and every offending path. */
export function parseKeysFile(text: string, path: string): KeysFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`keys file ${path} is not JSON: ${(err as Error).message}`, { cause: err });
  }
  const parsed = keysFileSchema.safeParse(json);
  if (!parsed.success) {
    throw new Error(`keys file ${path} is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}

export const readKeysFile = (path: string): KeysFile => parseKeysFile(readFileSync(path, 'utf8'), path);
