import request from 'supertest';
import { rawHeaders } from '@evp/contract';
import { CATALOG_KINDS } from '@evp/core';
import { createInProcessBus } from '@evp/embedded';
import { waitFor } from '@evp/testkit';
import { API, SDK, harness } from './test-fixtures';

const setup = () => harness(createInProcessBus());
const post = (app: Parameters<typeof request>[0], kind: string) => request(app).post(`/v1/ingest/catalog/${kind}`).set('Authorization', `Bearer ${SDK}`);

describe('POST /v1/ingest/catalog/{kind}', () => {
  it('produces one raw message per request, keyed <app>:catalog:<kind>, the body unchanged', async () => {
    const s = await setup();
    const body = JSON.stringify([
      { id: 's1', name: 'Clinic', type: 'clinic' },
      { id: 's2', name: 'Shop', type: 'pharmacy' },
    ]);
    const res = await post(s.app, 'site')
      .set('Content-Type', 'application/json')
      .set('X-Request-Id', 'r-cat')
      .set('User-Agent', 'ShopApp/57 CFNetwork/1494.0.7 Darwin/23.4.0')
      .set('X-EVP-SDK', 'ios/1.1.8')
      .send(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accepted: 2, request_id: 'r-cat' });
    await waitFor(() => s.raw.length === 1);
    const m = s.raw[0]!;
    expect(m.key).toBe('app-1:catalog:site');
    expect(m.value.toString()).toBe(body);
    expect(m.headers).toEqual({
      [rawHeaders.appId]: 'app-1',
      [rawHeaders.requestId]: 'r-cat',
      [rawHeaders.receivedAt]: '1700000000000',
      [rawHeaders.keyId]: 'k-sdk',
      [rawHeaders.payloadKind]: 'catalog:site',
      [rawHeaders.envelopeIndex]: '0',
      [rawHeaders.envelopeCount]: '1',
      // What the request says about its client, for the validator's quirk gates (docs/api.md).
      [rawHeaders.routeForm]: 'sdk',
      [rawHeaders.clientSdk]: 'ios/1.1.8',
      [rawHeaders.userAgent]: 'ShopApp/57 CFNetwork/1494.0.7 Darwin/23.4.0',
    });
    await s.close();
  });

  it.each([
    ['user_chw', 'hcw'],
    ['chw', 'hcw'],
    ['chwsite', 'site'],
  ])('accepts %s as an alias of %s: the key names the kind, the payload kind the name as sent (the validator applies what it means)', async (alias, kind) => {
    const s = await setup();
    expect((await post(s.app, alias).send([{ id: 'h1' }])).status).toBe(200);
    await waitFor(() => s.raw.length === 1);
    expect(s.raw[0]!.key).toBe(`app-1:catalog:${kind}`);
    expect(s.raw[0]!.headers[rawHeaders.payloadKind]).toBe(`catalog:${alias}`);
    await s.close();
  });

  it('accepts every catalog kind', async () => {
    const s = await setup();
    for (const kind of CATALOG_KINDS) expect((await post(s.app, kind).send([{ id: 'x' }])).status).toBe(200);
    await waitFor(() => s.raw.length === CATALOG_KINDS.length);
    await s.close();
  });

  it('accepts a kind the app defines itself: keyed and named as sent (the validator keeps its records generically)', async () => {
    const s = await setup();
    const res = await post(s.app, 'game_item').send([{ id: 'sword', power: 12 }]);
    expect([res.status, res.body.accepted]).toEqual([200, 1]);
    await waitFor(() => s.raw.length === 1);
    expect([s.raw[0]!.key, s.raw[0]!.headers[rawHeaders.payloadKind]]).toEqual(['app-1:catalog:game_item', 'catalog:game_item']);
    await s.close();
  });

  it.each(['Space-Ship', 'space.ship', '_ship', 'x'.repeat(65)])(
    'answers 404 unknown_catalog_kind for %s (no kind, and no app-defined kind name), with the kinds and the pattern, before reading the body',
    async (name) => {
      const s = await setup();
      const res = await post(s.app, name).set('Content-Type', 'application/json').send('not json');
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'unknown_catalog_kind', path: 'path.kind' });
      expect(res.body.error.message).toMatch(new RegExp(`^catalog kind "${name.replace('.', '\\.')}" is neither a built-in kind`));
      expect(res.body.error.details).toEqual({ kinds: [...CATALOG_KINDS, 'user_chw', 'chw', 'chwsite'], app_defined: '^[a-z][a-z0-9_]{0,63}$' });
      expect(s.raw).toHaveLength(0);
      await s.close();
    },
  );

  it('does not reveal the kinds without a key', async () => {
    const s = await setup();
    expect((await request(s.app).post('/v1/ingest/catalog/Space-Ship').send([{}])).status).toBe(401);
    expect((await request(s.app).post('/v1/ingest/catalog/site').set('Authorization', `Bearer ${API}`).send([{}])).status).toBe(403);
    await s.close();
  });

  it.each([
    ['an object', '{"id":"s1"}', 400, 'invalid_envelope'],
    ['an empty array', '[]', 400, 'invalid_envelope'],
    ['malformed JSON', '[{"id":', 400, 'invalid_json'],
    ['too many records', JSON.stringify([{}, {}, {}, {}, {}]), 413, 'too_many_events'],
  ])('refuses %s', async (_name, body, status, code) => {
    const s = await setup();
    const res = await post(s.app, 'drug').set('Content-Type', 'application/json').send(body);
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ code, path: '$' });
    expect(s.raw).toHaveLength(0);
    await s.close();
  });

  it('passes malformed records on: the validator rejects them one by one', async () => {
    const s = await setup();
    const res = await post(s.app, 'patient').send([{ id: 'p1' }, 42, { no_id: true }]);
    expect(res.body.accepted).toBe(3);
    await s.close();
  });
});

describe('POST /v1/ingest/dimensions (the Kenkai catalog upload)', () => {
  const dims = (app: Parameters<typeof request>[0]) => request(app).post('/v1/ingest/dimensions').set('Authorization', `Bearer ${SDK}`);

  it('produces one raw message of payload kind dimensions, the body unchanged, counting data.length', async () => {
    const s = await setup();
    const body = JSON.stringify({
      data: [
        { id: 'u1', type: 'user', kv: { timezone: '+05:00', birth_year: '1990' } },
        { id: 'd1', type: 'drug', kv: { name: 'Panadol' } },
        { id: 'x', type: 'game_item', kv: {} },
      ],
    });
    const res = await dims(s.app).set('Content-Type', 'application/json').set('X-Request-Id', 'r-dim').send(body);
    expect([res.status, res.body]).toEqual([200, { accepted: 3, request_id: 'r-dim' }]);
    await waitFor(() => s.raw.length === 1);
    expect(s.raw[0]!.key).toBe('app-1:catalog:dimensions');
    expect(s.raw[0]!.value.toString()).toBe(body);
    expect(s.raw[0]!.headers[rawHeaders.payloadKind]).toBe('dimensions');
    await s.close();
  });

  it.each([
    ['an array', [{ id: 'u', type: 'user' }], '$'],
    ['no data', { records: [] }, '$.data'],
    ['empty data', { data: [] }, '$.data'],
  ])('answers 400 invalid_envelope for %s, with the path', async (_l, body, path) => {
    const s = await setup();
    const res = await dims(s.app).send(body);
    expect([res.status, res.body.error.code, res.body.error.path]).toEqual([400, 'invalid_envelope', path]);
    await s.close();
  });

  it('needs an SDK key', async () => {
    const s = await setup();
    expect(
      (
        await request(s.app)
          .post('/v1/ingest/dimensions')
          .send({ data: [{ id: 'u' }] })
      ).status,
    ).toBe(401);
    expect(
      (
        await request(s.app)
          .post('/v1/ingest/dimensions')
          .set('Authorization', `Bearer ${API}`)
          .send({ data: [{ id: 'u' }] })
      ).status,
    ).toBe(403);
    await s.close();
  });
});
