import express from 'express';
import request from 'supertest';
import { browserCors } from './cors';

function app(opts: Parameters<typeof browserCors>[0]) {
  const a = express();
  a.use(browserCors(opts));
  a.use((_req, res) => void res.status(200).json({ routed: true }));
  return a;
}

describe('browserCors', () => {
  const headers = ['Authorization', 'Content-Type'];

  it('allows a listed origin (with Vary), not another one', async () => {
    const a = app({ allowedOrigins: ['https://shop.example'], allowHeaders: headers, answerPreflight: false });
    const ok = await request(a).post('/x').set('Origin', 'https://shop.example');
    expect([ok.headers['access-control-allow-origin'], ok.headers.vary, ok.headers['access-control-allow-headers']]).toEqual([
      'https://shop.example',
      'Origin',
      'Authorization, Content-Type',
    ]);
    const other = await request(a).post('/x').set('Origin', 'https://evil.example');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('`*` allows every origin without Vary', async () => {
    const res = await request(app({ allowedOrigins: ['*'], allowHeaders: headers, answerPreflight: false }))
      .post('/x')
      .set('Origin', 'https://any.example');
    expect([res.headers['access-control-allow-origin'], res.headers.vary]).toEqual(['*', undefined]);
  });

  it('answers a preflight with 204 only when asked to; otherwise the route does', async () => {
    const answered = await request(app({ allowedOrigins: ['*'], allowHeaders: headers, answerPreflight: true }))
      .options('/x')
      .set('Origin', 'https://a.example');
    expect([answered.status, answered.headers['access-control-allow-origin']]).toEqual([204, '*']);
    const routed = await request(app({ allowedOrigins: ['*'], allowHeaders: headers, answerPreflight: false }))
      .options('/x')
      .set('Origin', 'https://a.example');
    expect([routed.status, routed.body]).toEqual([200, { routed: true }]);
  });

  it('skips what `skip` names: no headers, no preflight answer', async () => {
    const a = app({ allowedOrigins: ['*'], allowHeaders: headers, answerPreflight: true, skip: (url) => url.startsWith('/data/') });
    const res = await request(a).options('/data/x').set('Origin', 'https://a.example');
    expect([res.status, res.headers['access-control-allow-origin']]).toEqual([200, undefined]);
  });
});
