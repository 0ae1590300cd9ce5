import request from 'supertest';
import { rawHeaders } from '@evp/contract';
import { KeyRing, type UserTokenPolicy } from '@evp/core';
import { createInProcessBus } from '@evp/embedded';
import { signUserToken, waitFor } from '@evp/testkit';
import { API, SDK, envelope, harness } from './test-fixtures';

const NOW = 1_700_000_000_000;
const SECRET = 'hs256-secret-of-the-app-1-server-0123';
const ring = (policy: UserTokenPolicy) =>
  new KeyRing({
    keys: [
      { id: 'k-sdk', app_id: 'app-1', role: 'sdk', key: SDK },
      { id: 'k-api', app_id: 'app-1', role: 'api', key: API },
      { id: 'tok-1', app_id: 'app-1', role: 'user_token', alg: 'HS256', key: SECRET },
    ],
    apps: { 'app-1': { user_tokens: policy } },
  });
const token = (sub: string, exp = NOW / 1000 + 600) => signUserToken({ sub, aud: 'app-1', iat: NOW / 1000, exp }, { kid: 'tok-1', secret: SECRET });
const tokenHeaders = (m: { headers: Record<string, string | undefined> }) => [
  m.headers[rawHeaders.userTokenPolicy],
  m.headers[rawHeaders.userTokenSub],
  m.headers[rawHeaders.userTokenProblem],
];

describe('user tokens on ingest', () => {
  const upload = async (policy: UserTokenPolicy, tok: string | undefined, via: 'header' | 'query' = 'header') => {
    const s = await harness(createInProcessBus(), { deps: { keys: ring(policy) } });
    const path = tok !== undefined && via === 'query' ? `/v1/ingest/log?sdk_key=${SDK}&user_token=${tok}` : '/v1/ingest/log';
    let r = request(s.app).post(path);
    if (via === 'header') r = r.set('Authorization', `Bearer ${SDK}`);
    if (tok !== undefined && via === 'header') r = r.set('X-EVP-User-Token', tok);
    const res = await r.send([envelope('u1'), envelope('u2')]);
    return { s, res };
  };
  const counts = async (s: Awaited<ReturnType<typeof harness>>) =>
    Object.fromEntries((await s.metrics.registry.getSingleMetric('user_tokens_total')!.get()).values.map((v) => [v.labels.outcome, v.value]));

  it('enforce: hands the verified sub to the validator with each message (header or ?user_token=), counting another user’s envelope as mismatch', async () => {
    for (const via of ['header', 'query'] as const) {
      const { s, res } = await upload('enforce', await token('u1'), via);
      expect(res.status).toBe(200);
      await waitFor(() => s.raw.length === 2);
      expect(s.raw.map(tokenHeaders)).toEqual([
        ['enforce', 'u1', undefined],
        ['enforce', 'u1', undefined],
      ]);
      expect(await counts(s)).toEqual({ mismatch: 1 });
      await s.close();
    }
  });

  it('enforce: no token is the validator’s per-event rule (stored, marked required); an invalid or expired one answers 401 and stores nothing', async () => {
    const none = await upload('enforce', undefined);
    expect(none.res.status).toBe(200);
    await waitFor(() => none.s.raw.length === 2);
    expect(tokenHeaders(none.s.raw[0]!)).toEqual(['enforce', undefined, 'required']);
    await none.s.close();
    for (const [tok, code] of [
      ['nope', 'user_token_invalid'],
      [await token('u1', NOW / 1000 - 60), 'user_token_expired'],
    ] as const) {
      const { s, res } = await upload('enforce', tok);
      expect([res.status, res.body.error.code, res.body.error.path]).toEqual([401, code, 'headers.x-evp-user-token']);
      expect(s.raw).toHaveLength(0);
      expect(await counts(s)).toEqual({ [code.replace('user_token_', '')]: 1 });
      await s.close();
    }
  });

  it('report: an invalid token is accepted and its problem travels for the warnings; off writes no token header and counts nothing', async () => {
    const report = await upload('report', 'nope');
    expect(report.res.status).toBe(200);
    await waitFor(() => report.s.raw.length === 2);
    expect(tokenHeaders(report.s.raw[0]!)).toEqual(['report', undefined, 'invalid']);
    expect(await counts(report.s)).toEqual({ invalid: 1 });
    await report.s.close();
    const off = await upload('off', 'nope');
    expect(off.res.status).toBe(200);
    await waitFor(() => off.s.raw.length === 2);
    expect(tokenHeaders(off.s.raw[0]!)).toEqual([undefined, undefined, undefined]);
    expect(await counts(off.s)).toEqual({});
    await off.s.close();
  });
});
