import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { KeyRing, UserTokenOutcomeTracker, createInMemoryUserTokenCountStore, readKeysFile, type KeysFile } from '@evp/core';

export interface DevKeys {
  ring: KeyRing;
  appId: string;
  sdkKey: string;
  apiKey: string;
  /** One read-only analyst key per app (ClickHouse HTTP interface), added to an older file that has none. */
  analystKeys: { appId: string; key: string }[];
  /**
   * The HS256 key the demo app's own server signs user tokens with (docs/keys.md, "User tokens"),
   * added to an older file that has none. The demo app runs in `enforce` (the demo shop sends its
   * shoppers' tokens); a file that already has an `apps` section keeps its policies as they are.
   */
  userTokenKey: { kid: string; secret: string };
  created: boolean;
}

const devKey = (role: string) => `${role}_dev_${randomBytes(16).toString('hex')}`;

/** Reads the development keys file (main.ts reloads it on change), creating one (two apps, an SDK and an API key each) when absent,
 * and gives every app an analyst key when it has none. */
export function loadOrCreateDevKeys(path: string): DevKeys {
  let created = false;
  const created_at = new Date().toISOString();
  if (!existsSync(path)) {
    const file: KeysFile = {
      keys: [
        { id: 'demo-sdk', app_id: 'demo-app', role: 'sdk', key: devKey('sdk'), created_at },
        { id: 'demo-api', app_id: 'demo-app', role: 'api', key: devKey('api'), created_at },
        { id: 'other-sdk', app_id: 'other-app', role: 'sdk', key: devKey('sdk'), created_at },
        { id: 'other-api', app_id: 'other-app', role: 'api', key: devKey('api'), created_at },
      ],
    };
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    created = true;
  }
  const file = readKeysFile(path);
  const apps = [...new Set(file.keys.map((e) => e.app_id))];
  const missing = apps.filter((app) => !file.keys.some((e) => e.role === 'analyst' && e.app_id === app && e.key));
  for (const app of missing) file.keys.push({ id: `${app.replace(/-app$/, '')}-analyst`, app_id: app, role: 'analyst', key: devKey('analyst'), created_at });
  // The demo's user tokens (demo-server.ts signs them): one HS256 secret per app that has none.
  const tokenless = apps.filter((app) => !file.keys.some((e) => e.role === 'user_token' && e.app_id === app));
  for (const app of tokenless) {
    file.keys.push({ id: `${app.replace(/-app$/, '')}-user-tokens`, app_id: app, role: 'user_token', alg: 'HS256', key: devKey('user_token'), created_at });
  }
  // The demo shop's app in enforce, as a health app should run (written once: an `apps` section, even
  // an edited one, is the file owner's choice and is left alone).
  const demoApp = file.keys.find((e) => e.role === 'sdk')?.app_id;
  const policy = file.apps === undefined && demoApp !== undefined;
  if (policy) file.apps = { [demoApp]: { user_tokens: 'enforce' } };
  if (missing.length > 0 || tokenless.length > 0 || policy) writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  const analystKeys = file.keys.filter((e) => e.role === 'analyst' && e.key).map((e) => ({ appId: e.app_id, key: e.key as string }));
  // The demo's keys are live ones (a revoked key in the file is listed by the console, not used).
  const live = (e: KeysFile['keys'][number]) => e.key !== undefined && (e.revoked_at === undefined || Date.parse(e.revoked_at) > Date.now());
  const sdk = file.keys.find((e) => e.role === 'sdk' && live(e));
  const api = file.keys.find((e) => e.role === 'api' && live(e) && e.app_id === sdk?.app_id);
  if (!sdk?.key || !api?.key) throw new Error(`${path} needs a plain sdk and api key of one app for the demo`);
  const signing = file.keys.find((e) => e.role === 'user_token' && e.alg === 'HS256' && e.app_id === sdk.app_id && live(e));
  // Built from the file as written, so the reloader knows its content and reloads only a change.
  if (!signing?.key) throw new Error(`${path} needs a live HS256 user_token key of app ${sdk.app_id} for the demo`);
  return {
    // One process, one store: the gateway's and action store's user token counts are what the
    // segmenter's GET /v1/keys/user-tokens reads (and its reads include what is not flushed yet).
    ring: KeyRing.fromFile(path, { tokenOutcomes: new UserTokenOutcomeTracker({ store: createInMemoryUserTokenCountStore() }) }),
    appId: sdk.app_id,
    sdkKey: sdk.key,
    apiKey: api.key,
    analystKeys,
    userTokenKey: { kid: signing.id, secret: signing.key },
    created,
  };
}

/**
 * The secret of erasure's keyed hash for `npm start` (PRIVACY_HASH_KEY in a deployment): created once
 * beside the chdb data, so suppressions stored by it are found again after a restart.
 */
export function loadOrCreatePrivacyHashKey(path: string): string {
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  }
  return readFileSync(path, 'utf8').trim();
}
