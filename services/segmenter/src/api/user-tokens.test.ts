import request from 'supertest';
import { KeyRing, createLogger, type Analytics } from '@evp/core';
import { createSegmenterApp } from './app';

const API = 'api-key-app1-0123456789';
const SDK = 'sdk-key-app1-0123456789';
const API2 = 'api-key-app2-0123456789';
const SECRET = 'hs256-secret-of-the-app-1-server-0123';
const JWK = { kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' } as const;

const keys = new KeyRing({
  keys: [
    { id: 'k-api', app_id: 'app-1', role: 'api', key: API },
    { id: 'k-sdk', app_id: 'app-1', role: 'sdk', key: SDK },
    { id: 'tok-hs', app_id: 'app-1', role: 'user_token', alg: 'HS256', key: SECRET, created_at: '2026-11-01T09:00:00Z' },
    { id: 'tok-es', app_id: 'app-1', role: 'user_token', alg: 'ES256', jwk: JWK, revoked_at: '2026-11-20T09:00:00Z' },
    { id: 'k-api2', app_id: 'app-2', role: 'api', key: API2 },
  ],
  apps: { 'app-1': { user_tokens: 'report' } },
});

// The route reads the keys file and the count store only: no ClickHouse behind it.
const app = createSegmenterApp({ analytics: {} as Analytics, keys, logger: createLogger('test', 'silent') }).app;
const get = (key: string) => request(app).get('/v1/keys/user-tokens').set('Authorization', `Bearer ${key}`);

describe('GET /v1/keys/user-tokens', () => {
  it('answers the API key’s app: its policy, its token keys by kid without secret or JWK, and the last hour’s counts per outcome', async () => {
    for (const outcome of ['valid', 'valid', 'valid', 'required', 'required', 'expired'] as const) keys.tokenOutcomes.record('app-1', outcome);
    const res = await get(API);
    expect([res.status, res.body]).toEqual([
      200,
      {
        app_id: 'app-1',
        policy: 'report',
        keys: [
          { id: 'tok-es', alg: 'ES256', created_at: null, revoked_at: '2026-11-20T09:00:00Z' },
          { id: 'tok-hs', alg: 'HS256', created_at: '2026-11-01T09:00:00Z', revoked_at: null },
        ],
        last_hour: { valid: 3, anonymous: 0, required: 2, invalid: 0, expired: 1, mismatch: 0 },
      },
    ]);
    expect(res.text).not.toContain(SECRET);
    expect(res.text).not.toContain(JWK.x);
  });

  it('shows another app only its own (policy off by default, no keys); an SDK key is refused', async () => {
    keys.tokenOutcomes.record('app-2', 'mismatch');
    const other = await get(API2);
    expect([other.status, other.body]).toEqual([
      200,
      { app_id: 'app-2', policy: 'off', keys: [], last_hour: { valid: 0, anonymous: 0, required: 0, invalid: 0, expired: 0, mismatch: 1 } },
    ]);
    const sdk = await get(SDK);
    expect([sdk.status, sdk.body.error.code]).toEqual([403, 'forbidden_role']);
  });
});
