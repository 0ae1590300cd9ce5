import request from 'supertest';
import { createInProcessBus } from '@evp/embedded';
import { MAX_JSON_DEPTH } from '@evp/http';
import { waitFor } from '@evp/testkit';
import type { GatewayDeps } from './app';
import { SDK, envelope, harness } from './test-fixtures';

const setup = (deps: Partial<GatewayDeps> = {}) => harness(createInProcessBus(), { deps });
const post = (app: Parameters<typeof request>[0], path = '/v1/ingest/log') =>
  request(app).post(path).set('Authorization', `Bearer ${SDK}`).set('Content-Type', 'application/json');
const errorLines = (logs: Record<string, unknown>[]) => logs.filter((l) => l.level === 'error' || l.level === 50);

describe('gateway: hostile client input is a 4xx in the one error shape', () => {
  it('answers 400 too_deep for an array body nested 4,500 deep, naming the first too-deep value', async () => {
    const s = await setup({ limits: { maxBodyBytes: 64 * 1024, maxEventsPerRequest: 3, retryAfterSeconds: 7 } });
    const res = await post(s.app, '/v1/ingest/events').send('['.repeat(4500) + ']'.repeat(4500));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        code: 'too_deep',
        message: `The body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`,
        path: `$${'[0]'.repeat(MAX_JSON_DEPTH)}`,
        details: { max_depth: MAX_JSON_DEPTH },
        request_id: res.headers['x-request-id'],
      },
    });
    expect(s.raw).toHaveLength(0);
    expect(errorLines(s.logs)).toEqual([]);
    await s.close();
  });

  it('refuses an envelope whose ctx nests past the limit (the validator would recurse on it) and takes one at the limit', async () => {
    const s = await setup();
    const deepCtx = (n: number) => JSON.parse('['.repeat(n) + ']'.repeat(n)) as unknown;
    // envelope → data → event → ctx: three levels before ctx's own.
    const over = { ...envelope('u'), data: [{ ...envelope('u').data[0], ctx: deepCtx(MAX_JSON_DEPTH - 2) }] };
    const res = await post(s.app).send(over);
    expect([res.status, res.body.error.code, res.body.error.path]).toEqual([400, 'too_deep', `$.data[0].ctx${'[0]'.repeat(MAX_JSON_DEPTH - 3)}`]);
    const at = { ...envelope('u'), data: [{ ...envelope('u').data[0], ctx: deepCtx(MAX_JSON_DEPTH - 3) }] };
    expect((await post(s.app).send(at)).status).toBe(200);
    await s.close();
  });

  it('answers 413 too_many_events for more envelopes than the limit, before producing anything', async () => {
    const s = await setup({ limits: { maxBodyBytes: 4 * 1024 * 1024, maxEventsPerRequest: 5000, maxEnvelopesPerRequest: 1000, retryAfterSeconds: 7 } });
    const body = `[${Array.from({ length: 100_000 }, () => '{"data":[]}').join(',')}]`;
    const res = await post(s.app, '/v1/ingest/events').send(body);
    expect(res.status).toBe(413);
    expect(res.body.error).toEqual({
      code: 'too_many_events',
      message: 'The request holds 100000 envelopes; the limit is 1000.',
      path: '$',
      details: { envelopes: 100_000, max_envelopes: 1000 },
      request_id: res.headers['x-request-id'],
    });
    expect(s.raw).toHaveLength(0);
    const atLimit = await post(s.app, '/v1/ingest/events').send(`[${Array.from({ length: 1000 }, () => '{"data":[]}').join(',')}]`);
    expect(atLimit.body).toEqual({ accepted: 0, request_id: expect.any(String) });
    await s.close();
  });

  it.each(['__proto__', 'toString', 'hasOwnProperty', 'valueOf'])('answers 404 unknown_catalog_kind for the built-in name %s', async (kind) => {
    const s = await setup();
    const res = await post(s.app, `/v1/ingest/catalog/${kind}`).send('[{"id":"x"}]');
    expect([res.status, res.body.error.code, res.body.error.path, res.body.error.message]).toEqual([
      404,
      'unknown_catalog_kind',
      'path.kind',
      expect.stringMatching(new RegExp(`^catalog kind "${kind}" is neither a built-in kind`)),
    ]);
    expect(s.raw).toHaveLength(0);
    await s.close();
  });

  it('takes the built-in name constructor for what it looks like, an app-defined kind, never for a built-in one', async () => {
    const s = await setup();
    const res = await post(s.app, '/v1/ingest/catalog/constructor').send('[{"id":"x"}]');
    expect(res.status).toBe(200);
    await waitFor(() => s.raw.length === 1);
    expect([s.raw[0]!.key, s.raw[0]!.headers.payload_kind]).toEqual(['app-1:catalog:constructor', 'catalog:constructor']);
    await s.close();
  });

  it('answers 400 invalid_request for a bad %-escape in the catalog kind, with no error log', async () => {
    const s = await setup();
    const res = await post(s.app, '/v1/ingest/catalog/%E0%A4%A').send('[{"id":"x"}]');
    expect([res.status, res.body.error.code, res.body.error.path]).toEqual([400, 'invalid_request', 'path']);
    expect(errorLines(s.logs)).toEqual([]);
    await s.close();
  });

  it('answers 415 for a charset other than UTF-8 and still takes charset=UTF-8', async () => {
    const s = await setup();
    const latin = await post(s.app)
      .set('Content-Type', 'application/json; charset=iso-8859-1')
      .send(JSON.stringify(envelope('u')));
    expect([latin.status, latin.body.error.code, latin.body.error.path]).toEqual([415, 'unsupported_media_type', 'headers.content-type']);
    const utf8 = await post(s.app)
      .set('Content-Type', 'text/plain;charset=UTF-8')
      .send(JSON.stringify(envelope('u')));
    expect(utf8.status).toBe(200);
    await s.close();
  });
});
