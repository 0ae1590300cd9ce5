import request from 'supertest';
import { rawHeaders } from '@evp/contract';
import { createInProcessBus } from '@evp/embedded';
import { waitFor } from '@evp/testkit';
import { API, SDK, harness } from './test-fixtures';

const setup = () => harness(createInProcessBus());
const crash = {
  u_id: 'usr_48213',
  d_info: { brand: 'Apple', id: 'D-1', model: 'iPhone 14', os: 'iOS', os_ver: '17.4.1' },
  app_info: { id: 'com.example.pharmacy', min_sdk_version: 15, target_sdk_version: 17, version: '2.4.1 (57)', version_code: 57, version_name: '2.4.1' },
  sdk: 'ios/1.2.3',
  data: [
    {
      title: 'Invalid CurrencyCode provided',
      event_type: 'cart',
      exception_type: 'IllegalArgumentException',
      exception_source: 'SDK',
      stack_trace: 's',
      ts: '2025-03-17T12:05:11.482+03:00',
    },
    {
      title: '-1: nil',
      event_type: 'https://api.causalfoundry.ai/v1/ingest/log',
      exception_type: 'NullPointerException',
      exception_source: 'SDK',
      stack_trace: 's',
      ts: '2025-03-17T12:07:40.019+03:00',
    },
  ],
};

describe('POST /v1/ingest/sdk/crash (causalfoundry/ios-sdk 0.4.3–1.2.3)', () => {
  it('produces one raw message of payload kind crash, keyed <app>:<u_id>, the body unchanged; counts the items', async () => {
    const s = await setup();
    const body = JSON.stringify(crash, null, 2).replace(/\//g, '\\/'); // pretty-printed, "/" escaped, as JSONSerialization writes it
    const res = await request(s.app)
      .post('/v1/ingest/sdk/crash')
      .set('Authorization', `Bearer ${SDK}`)
      .set('Content-Type', 'application/json')
      .set('X-Request-Id', 'r-crash')
      .send(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accepted: 2, request_id: 'r-crash' });
    await waitFor(() => s.raw.length === 1);
    const m = s.raw[0]!;
    expect(m.key).toBe('app-1:usr_48213');
    expect(m.value.toString()).toBe(body);
    expect(m.headers[rawHeaders.payloadKind]).toBe('crash');
    await s.close();
  });

  it('needs an SDK key', async () => {
    const s = await setup();
    expect((await request(s.app).post('/v1/ingest/sdk/crash').send(crash)).status).toBe(401);
    expect((await request(s.app).post('/v1/ingest/sdk/crash').set('Authorization', `Bearer ${API}`).send(crash)).status).toBe(403);
    await s.close();
  });

  it.each([
    ['an array', JSON.stringify([crash]), '$'],
    ['an object without data', JSON.stringify({ u_id: 'u' }), '$.data'],
  ])('refuses %s (invalid_envelope)', async (_name, body, path) => {
    const s = await setup();
    const res = await request(s.app).post('/v1/ingest/sdk/crash').set('Authorization', `Bearer ${SDK}`).set('Content-Type', 'application/json').send(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_envelope', path });
    expect(s.raw).toHaveLength(0);
    await s.close();
  });
});
