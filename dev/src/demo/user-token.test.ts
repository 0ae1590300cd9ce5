import { createServer, type Server } from 'node:http';
import { KeyRing, createLogger, type Analytics } from '@evp/core';
import { createUserTokenVerifier } from '@evp/http';

const verifyUserToken = createUserTokenVerifier();
import { demoServer } from './demo-server';

// The demo shop's token endpoint signs with the HS256 key npm start writes (dev-keys.ts); the
// platform's own verifier accepts what it signs, for the user asked and the demo's app only.
describe('GET /demo/user-token', () => {
  const key = { kid: 'demo-user-tokens', secret: 'user_token_dev_0123456789abcdef0123456789' };
  const ring = new KeyRing({ keys: [{ id: key.kid, app_id: 'demo-app', role: 'user_token', alg: 'HS256', key: key.secret }] });
  const NOW = Date.parse('2026-11-28T12:00:00Z');
  let server: Server;
  let base: string;
  beforeAll(async () => {
    const shop = { files: {}, entries: { 'shop.js': 'shop.js', 'shop.css': 'shop.css' } };
    server = createServer(
      demoServer({
        analytics: {} as Analytics,
        appId: 'demo-app',
        sdkKey: 'sdk',
        logger: createLogger('demo', 'silent'),
        shop,
        userTokenKey: key,
        now: () => NOW,
      }),
    );
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

  it('signs an hour-long token for the user, which the platform verifies as that user of the demo app', async () => {
    const res = await fetch(`${base}/demo/user-token?user_id=alice%40example.org`);
    expect([res.status, res.headers.get('cache-control')]).toEqual([200, 'no-store']);
    const body = (await res.json()) as { token: string; expires_at: string };
    expect(body.expires_at).toBe('2026-11-28T13:00:00.000Z');
    expect(await verifyUserToken(ring, 'demo-app', body.token, () => NOW)).toEqual({ outcome: 'valid', sub: 'alice@example.org' });
    expect(await verifyUserToken(ring, 'other-app', body.token, () => NOW)).toMatchObject({ outcome: 'invalid' });
  });

  it('refuses a missing or odd user id with 400 invalid_request', async () => {
    for (const q of ['', '?user_id=', `?user_id=${'x'.repeat(129)}`, '?user_id=a%20b']) {
      const res = await fetch(`${base}/demo/user-token${q}`);
      expect([res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([400, 'invalid_request']);
    }
  });
});
