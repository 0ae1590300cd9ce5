import { readFileSync } from 'node:fs';
import { z } from 'zod';

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

const keyEntry = z
  .object({
    id: z.string().min(1),
    app_id: z
      .string()
      .min(1)
      .regex(/^[A-Za-z0-9._-]+$/, 'app_id may hold letters, digits, . _ -'),
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
  })
  .refine((e) => (e.key === undefined) !== (e.sha256 === undefined), 'give exactly one of key and sha256');

export const keysFileSchema = z.object({ keys: z.array(keyEntry).min(1) });
export type KeysFile = z.infer<typeof keysFileSchema>;
export type KeyEntry = KeysFile['keys'][number];

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
