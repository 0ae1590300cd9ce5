import request from 'supertest';
import { rawHeaders } from '@evp/contract';
import { createInProcessBus } from '@evp/embedded';
import { waitFor } from '@evp/testkit';
import { API, SDK, envelope, harness } from './test-fixtures';

// navigator.sendBeacon posts text/plain and cannot set headers: the SDK key comes as ?sdk_key= on the
// ingest routes only (docs/api.md, "The SDK key in the URL").
const setup = () => harness(createInProcessBus());
const beacon = (app: Parameters<typeof request>[0], path: string) => request(app).post(path).set('Content-Type', 'text/plain;charset=UTF-8');

describe('the SDK key in the URL (sendBeacon)', () => {
  it.each([['/v1/ingest/log'], ['/v1/ingest/events']])('%s: a text/plain body with ?sdk_key= is stored under the key’s app', async (path) => {
    const s = await setup();
    const res = await beacon(s.app, `${path}?sdk_key=${SDK}`)
      .set('Origin', 'https://shop.example')
      .send(JSON.stringify(envelope('b', 2)));
    expect([res.status, res.body]).toEqual([200, { accepted: 2, request_id: expect.any(String) }]);
    // Readable by the page's own fetch too (the library's keepalive fallback).
    expect(res.headers['access-control-allow-origin']).toBe('https://shop.example');
    await waitFor(() => s.raw.length === 1);
    expect([s.raw[0]!.key, s.raw[0]!.headers[rawHeaders.appId], s.raw[0]!.headers[rawHeaders.keyId]]).toEqual(['app-1:b', 'app-1', 'k-sdk']);
    expect(JSON.parse(s.raw[0]!.value.toString())).toEqual(envelope('b', 2));
    await s.close();
  });

  it('takes the catalog route’s SDK key from the URL too', async () => {
    const s = await setup();
    const res = await beacon(s.app, `/v1/ingest/catalog/user?sdk_key=${SDK}`).send(JSON.stringify([{ id: 'u-1', name: 'Ann' }]));
    expect([res.status, res.body.accepted]).toEqual([200, 1]);
    await waitFor(() => s.raw.length === 1);
    expect(s.raw[0]!.headers[rawHeaders.payloadKind]).toBe('catalog:user');
    await s.close();
  });

  it('refuses an API key in the URL with api_key_in_url, stores nothing (also beside a valid header)', async () => {
    const s = await setup();
    const alone = await beacon(s.app, `/v1/ingest/log?sdk_key=${API}`).send(JSON.stringify(envelope('x')));
    const withHeader = await beacon(s.app, `/v1/ingest/log?sdk_key=${API}`)
      .set('Authorization', `Bearer ${SDK}`)
      .send(JSON.stringify(envelope('x')));
    for (const res of [alone, withHeader]) {
      expect([res.status, res.body.error.code, res.body.error.path]).toEqual([403, 'api_key_in_url', 'query.sdk_key']);
    }
    expect(alone.body.error.message).toBe(
      'An API key was sent in the URL. API keys are secret: send them only in the Authorization header, and replace this one (URLs end up in logs).',
    );
    expect(s.raw).toHaveLength(0);
    await s.close();
  });

  it.each([
    ['an unknown key', `?sdk_key=nope-nope-nope-nope`, 401, 'auth_invalid', 'query.sdk_key'],
    ['the key twice', `?sdk_key=${SDK}&sdk_key=${SDK}`, 400, 'invalid_request', 'query.sdk_key'],
    ['no key at all', '', 401, 'auth_missing', 'headers.authorization'],
  ])('refuses %s', async (_name, query, status, code, path) => {
    const s = await setup();
    const res = await beacon(s.app, `/v1/ingest/log${query}`).send(JSON.stringify(envelope('x')));
    expect([res.status, res.body.error.code, res.body.error.path]).toEqual([status, code, path]);
    if (code === 'auth_missing') {
      expect(res.body.error.message).toBe('Send the SDK key as Authorization: Bearer <key>, or (sendBeacon) as the query parameter sdk_key.');
    }
    expect(s.raw).toHaveLength(0);
    await s.close();
  });

  it('ignores sdk_key on the routes that do not take it: the crash, dimensions and import routes still need the header', async () => {
    const s = await setup();
    const crash = await beacon(s.app, `/v1/ingest/sdk/crash?sdk_key=${SDK}`).send('{}');
    const dims = await beacon(s.app, `/v1/ingest/dimensions?sdk_key=${SDK}`).send('{"data":[]}');
    const imp = await beacon(s.app, `/data/ingest/log?sdk_key=${SDK}`).send(JSON.stringify(envelope('x')));
    expect([crash, dims, imp].map((r) => [r.status, r.body.error.code])).toEqual([
      [401, 'auth_missing'],
      [401, 'auth_missing'],
      [401, 'auth_missing'],
    ]);
    expect(s.raw).toHaveLength(0);
    await s.close();
  });

  it('prefers the Authorization header when both carry an SDK key', async () => {
    const s = await setup();
    const res = await beacon(s.app, `/v1/ingest/log?sdk_key=nope-nope-nope-nope`)
      .set('Authorization', `Bearer ${SDK}`)
      .send(JSON.stringify(envelope('h')));
    expect(res.status).toBe(200);
    await s.close();
  });
});
