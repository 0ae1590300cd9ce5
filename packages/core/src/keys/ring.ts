import { sha256Hex } from '../hash';
import { readFileSync } from 'node:fs';
import { privacyOf, pseudonymise, resolvePrivacy, type AppPrivacy, type PrivacyTable, type PseudonymKey } from '../privacy';
import { parseKeysFile, type KeysFile, type Role, type UserTokenKeyEntry, type UserTokenPolicy } from './file';
import { DEFAULT_RETENTION, resolveRetention, type AppRetention } from './retention';
import { KeyUsageTracker, createInMemoryKeyUsageStore } from './usage';
import { UserTokenOutcomeTracker, createInMemoryUserTokenCountStore } from './token-outcomes';

export interface KeyGrant {
  keyId: string;
  appId: string;
  role: Role;
}

/** What may be shown of a key: never the key or its digest. */
export interface KeyInfo {
  id: string;
  role: Role;
  createdAt: string | undefined;
  revokedAt: string | undefined;
}

interface Held {
  grant: KeyGrant;
  /** Epoch ms from which the key is refused; undefined: never. */
  revokedFrom: number | undefined;
}

/** A presented key that is known: `revoked` says it may no longer be used. */
export interface KeyMatch {
  grant: KeyGrant;
  revoked: boolean;
}

/** A user token signing key as the ring holds it: the file's entry (jwk or secret) and when it stops. */
export interface UserTokenKey {
  entry: UserTokenKeyEntry;
  /** Epoch ms from which tokens of this kid are refused; undefined: never. */
  revokedFrom: number | undefined;
}

interface Contents {
  byHash: Map<string, Held>;
  byApp: Map<string, KeyInfo[]>;
  /** app → kid → signing key. */
  tokenKeys: Map<string, Map<string, UserTokenKey>>;
  policies: Map<string, UserTokenPolicy>;
  retention: Map<string, AppRetention>;
  /** Every app's privacy policy with its newest pseudonym key; a new object at each reload. */
  privacy: PrivacyTable;
  /** app → version → pseudonym key (every version: erasure computes old rows' pseudonyms). */
  pseudonymKeys: Map<string, Map<number, PseudonymKey>>;
}

const instantMs = (iso: string | undefined) => (iso === undefined ? undefined : Date.parse(iso));

/** Builds the lookup tables of a file, or throws without touching anything (a ring keeps its set). */
function contentsOf(file: KeysFile): Contents {
  const byHash = new Map<string, Held>();
  const byApp = new Map<string, KeyInfo[]>();
  const tokenKeys = new Map<string, Map<string, UserTokenKey>>();
  for (const e of file.keys) {
    if (e.role === 'user_token') {
      const kids = tokenKeys.get(e.app_id) ?? new Map<string, UserTokenKey>();
      if (kids.has(e.id)) throw new Error(`keys file: app ${e.app_id} has two user_token keys with id ${e.id}`);
      tokenKeys.set(e.app_id, kids.set(e.id, { entry: e, revokedFrom: instantMs(e.revoked_at) }));
      continue;
    }
    const hash = e.sha256 ?? sha256Hex(e.key as string);
    if (byHash.has(hash)) throw new Error(`keys file: key ${e.id} is listed twice`);
    const listed = byApp.get(e.app_id) ?? [];
    // Ids name keys in the console, the key_id header and rejected records: one id, one key per app.
    if (listed.some((k) => k.id === e.id)) throw new Error(`keys file: app ${e.app_id} has two keys with id ${e.id}`);
    byHash.set(hash, { grant: { keyId: e.id, appId: e.app_id, role: e.role }, revokedFrom: instantMs(e.revoked_at) });
    listed.push({ id: e.id, role: e.role, createdAt: e.created_at, revokedAt: e.revoked_at });
    byApp.set(e.app_id, listed);
  }
  for (const [app, kids] of tokenKeys) {
    const clash = [...kids.keys()].find((kid) => byApp.get(app)?.some((k) => k.id === kid));
    if (clash !== undefined) throw new Error(`keys file: app ${app} has two keys with id ${clash}`);
  }
  for (const list of byApp.values()) list.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const policies = new Map<string, UserTokenPolicy>();
  for (const [app, settings] of Object.entries(file.apps ?? {})) if (settings.user_tokens !== undefined) policies.set(app, settings.user_tokens);
  const retention = new Map<string, AppRetention>();
  for (const [app, settings] of Object.entries(file.apps ?? {})) if (settings.retention !== undefined) retention.set(app, resolveRetention(settings.retention));
  const pseudonymKeys = new Map<string, Map<number, PseudonymKey>>();
  for (const k of file.pseudonym_keys ?? [])
    pseudonymKeys.set(k.app_id, (pseudonymKeys.get(k.app_id) ?? new Map<number, PseudonymKey>()).set(k.version, { version: k.version, secret: k.key }));
  const newest = (app: string): PseudonymKey | undefined => {
    const versions = [...(pseudonymKeys.get(app)?.values() ?? [])];
    return versions.length === 0 ? undefined : versions.reduce((a, b) => (b.version > a.version ? b : a));
  };
  const apps: Record<string, AppPrivacy> = {};
  for (const app of new Set([...Object.keys(file.apps ?? {}), ...pseudonymKeys.keys()])) apps[app] = resolvePrivacy(file.apps?.[app]?.privacy, newest(app));
  return { byHash, byApp, tokenKeys, policies, retention, privacy: { apps, default: resolvePrivacy(undefined) }, pseudonymKeys };
}

export interface KeyRingOptions {
  /** Where uses are recorded (default: this process's memory only). */
  usage?: KeyUsageTracker;
  /** Where user token outcomes are counted for the last hour (default: this process's memory only). */
  tokenOutcomes?: UserTokenOutcomeTracker;
  now?: () => number;
}

/**
 * The keys a service accepts. `replace` swaps in a new file's set at once (a reload); a file that
 * does not build leaves the current set in place.
 */
export class KeyRing {
  private contents: Contents;
  private digest: string | undefined;
  readonly usage: KeyUsageTracker;
  readonly tokenOutcomes: UserTokenOutcomeTracker;
  private readonly now: () => number;

  constructor(file: KeysFile, opts: KeyRingOptions = {}) {
    this.contents = contentsOf(file);
    this.usage = opts.usage ?? new KeyUsageTracker({ store: createInMemoryKeyUsageStore() });
    this.tokenOutcomes = opts.tokenOutcomes ?? new UserTokenOutcomeTracker({ store: createInMemoryUserTokenCountStore() });
    this.now = opts.now ?? Date.now;
  }

  static fromFile(path: string, opts: KeyRingOptions = {}): KeyRing {
    const text = readFileSync(path, 'utf8');
    const ring = new KeyRing(parseKeysFile(text, path), opts);
    ring.digest = sha256Hex(text);
    return ring;
  }

  /** SHA-256 of the file text the keys came from, when known: a reloader skips that same content. */
  get sourceDigest(): string | undefined {
    return this.digest;
  }

  /** Swaps in a new set at once; throws, keeping the current set, when the file does not build. */
  replace(file: KeysFile, digest?: string): void {
    this.contents = contentsOf(file);
    this.digest = digest;
  }

  keysCount(): number {
    return this.contents.byHash.size;
  }

  /** Hashing first means lookups compare digests, never the secret itself. Revoked keys included. */
  match(presented: string): KeyMatch | undefined {
    const held = this.contents.byHash.get(sha256Hex(presented));
    if (!held) return undefined;
    return { grant: held.grant, revoked: held.revokedFrom !== undefined && held.revokedFrom <= this.now() };
  }

  /** The grant of a key that may be used now (known and not revoked). */
  lookup(presented: string): KeyGrant | undefined {
    const m = this.match(presented);
    return m && !m.revoked ? m.grant : undefined;
  }

  /** Notes an accepted use (coalesced in memory; see KeyUsageTracker). */
  used(grant: KeyGrant): void {
    this.usage.used(grant.appId, grant.keyId);
  }

  /** Whether the app's SDK-key calls need a user token (the file's `apps.<app>.user_tokens`; default off). */
  userTokenPolicy(appId: string): UserTokenPolicy {
    return this.contents.policies.get(appId) ?? 'off';
  }

  /**
   * Every app's privacy policy (the file's `apps.<app>.privacy` and newest `pseudonym_keys`): the
   * same object until a reload applies a new file, so a holder can tell a change by identity.
   */
  privacyTable(): PrivacyTable {
    return this.contents.privacy;
  }

  /** One app's privacy policy. */
  privacy(appId: string): AppPrivacy {
    return privacyOf(this.contents.privacy, appId);
  }

  /** The app's pseudonym key of `version` (erasure recomputes pseudonyms made with an older one); undefined when not in the file. */
  pseudonymKey(appId: string, version: number): PseudonymKey | undefined {
    return this.contents.pseudonymKeys.get(appId)?.get(version);
  }

  /**
   * A value's pseudonym under each of the app's key versions, newest first: what erasure and export
   * look for to find a person's rows made before and after rotations (docs/privacy.md, "Rotation").
   */
  pseudonymsOf(appId: string, value: string): string[] {
    const versions = [...(this.contents.pseudonymKeys.get(appId)?.values() ?? [])].sort((a, b) => b.version - a.version);
    return versions.map((k) => pseudonymise(k.secret, k.version, value));
  }

  /** The app's user token signing keys as the file lists them (the console shows their ids, algs and dates). */
  userTokenKeysOf(appId: string): UserTokenKey[] {
    return [...(this.contents.tokenKeys.get(appId)?.values() ?? [])];
  }

  /** How long each class of the app's data is kept, in days (0 = forever): the file's `apps.<app>.retention` over the defaults. */
  retention(appId: string): AppRetention {
    return this.contents.retention.get(appId) ?? DEFAULT_RETENTION;
  }

  /** Every app the file names (by a key or by settings), sorted: what per-app jobs (the expiry of ended memberships) go through. */
  apps(): string[] {
    const { byApp, tokenKeys, retention, privacy } = this.contents;
    return [...new Set([...byApp.keys(), ...tokenKeys.keys(), ...retention.keys(), ...Object.keys(privacy.apps)])].sort();
  }

  /** The app's user token signing key named `kid`, revoked or not; undefined when the app has none of that name. */
  userTokenKey(appId: string, kid: string): UserTokenKey | undefined {
    return this.contents.tokenKeys.get(appId)?.get(kid);
  }

  /** The app's bearer keys by id, revoked ones included (user token signing keys are not bearer keys). */
  keysOf(appId: string): KeyInfo[] {
    return [...(this.contents.byApp.get(appId) ?? [])];
  }
}
