import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { sha256Hex } from './hash';

/**
 * Keys file: each key maps to one app and one role. An `sdk` key is public (shipped in apps): it may
 * ingest for its app and fetch actions for one user. An `api` key is secret (partner side): it may
 * create actions and bulk-pull for its app. An `analyst` key is secret and read-only: it may only run
 * SELECT queries over its app's rows on the ClickHouse HTTP interface (docs/analytics.md).
 * The file may hold the key itself or its SHA-256 hex.
 */
export const ROLES = ['sdk', 'api', 'analyst'] as const;
export type Role = (typeof ROLES)[number];

export interface KeyGrant {
  keyId: string;
  appId: string;
  role: Role;
}

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
  })
  .refine((e) => (e.key === undefined) !== (e.sha256 === undefined), 'give exactly one of key and sha256');

export const keysFileSchema = z.object({ keys: z.array(keyEntry).min(1) });
export type KeysFile = z.infer<typeof keysFileSchema>;

export class KeyRing {
  private readonly byHash = new Map<string, KeyGrant>();

  constructor(file: KeysFile) {
    for (const e of file.keys) {
      const hash = e.sha256 ?? sha256Hex(e.key as string);
      if (this.byHash.has(hash)) throw new Error(`keys file: key ${e.id} is listed twice`);
      this.byHash.set(hash, { keyId: e.id, appId: e.app_id, role: e.role });
    }
  }

  static fromFile(path: string): KeyRing {
    const parsed = keysFileSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    if (!parsed.success) {
      throw new Error(`keys file ${path} is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    }
    return new KeyRing(parsed.data);
  }

  /** Hashing first means lookups compare digests, never the secret itself. */
  lookup(presented: string): KeyGrant | undefined {
    return this.byHash.get(sha256Hex(presented));
  }
}
