import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { KeyRing, keysFileSchema, type KeysFile } from '@evp/core';

export interface DevKeys {
  ring: KeyRing;
  appId: string;
  sdkKey: string;
  apiKey: string;
  created: boolean;
}

/** Reads the development keys file, creating one (two apps, an SDK and an API key each) when absent. */
export function loadOrCreateDevKeys(path: string): DevKeys {
  let created = false;
  if (!existsSync(path)) {
    const k = (role: string) => `${role}_dev_${randomBytes(16).toString('hex')}`;
    const file: KeysFile = {
      keys: [
        { id: 'demo-sdk', app_id: 'demo-app', role: 'sdk', key: k('sdk') },
        { id: 'demo-api', app_id: 'demo-app', role: 'api', key: k('api') },
        { id: 'other-sdk', app_id: 'other-app', role: 'sdk', key: k('sdk') },
        { id: 'other-api', app_id: 'other-app', role: 'api', key: k('api') },
      ],
    };
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    created = true;
  }
  const file = keysFileSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
  const sdk = file.keys.find((e) => e.role === 'sdk' && e.key);
  const api = file.keys.find((e) => e.role === 'api' && e.key && e.app_id === sdk?.app_id);
  if (!sdk?.key || !api?.key) throw new Error(`${path} needs a plain sdk and api key of one app for the demo`);
  return { ring: new KeyRing(file), appId: sdk.app_id, sdkKey: sdk.key, apiKey: api.key, created };
}
