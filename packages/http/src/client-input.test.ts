import { createServer } from 'node:http';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import express from 'express';
import request from 'supertest';
import { ApiError, createLogger } from '@evp/core';
import { createHttpApp } from './app';
import { checkJsonContentType } from './content-type';
import { checkJsonDepth, firstTooDeepPath, nestsDeeperThan } from './json-depth';
import { answerClientErrorsAsJson } from './client-errors';
import { closeServer, listen } from './server';

/** An app with a parameterised route and a body-parser route, and every log line it writes. */
function setup() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, cb) {
      for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  const { app } = createHttpApp({
    logger: createLogger('t', 'debug', sink),
    metricsPrefix: 'ci',
    routes: (router) => {
      router.get('/things/:id', (req, res) => void res.json({ id: req.params.id }));
      router.post(
        '/json',
        (req, _res, next) => (checkJsonContentType(req), next()),
        express.json({ type: () => true }),
        (req, res) => void res.json(req.body),
      );
    },
  });
  return { app, errorLines: () => lines.filter((l) => l.level === 'error' || l.level === 50) };
}

/** Sends raw bytes and resolves with everything the server wrote back before closing. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function parseRaw(answer: string) {
  const [head, body] = answer.split('\r\n\r\n') as [string, string];
  const [statusLine, ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine?.split(' ')[1]), headers, body: JSON.parse(body) as { error: Record<string, unknown> } };
}

describe('client input never answers 500', () => {
  it('answers 400 invalid_request for a bad %-escape in a path parameter, with no error log', async () => {
    const s = setup();
    const res = await request(s.app).get('/things/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        code: 'invalid_request',
        message: 'A path parameter is not valid percent-encoded UTF-8.',
        path: 'path',
        request_id: res.headers['x-request-id'],
      },
    });
    expect(s.errorLines()).toEqual([]);
  });

  it.each([
    ['charset=latin1', 'application/json; charset=latin1', 415, 'unsupported_media_type', 'headers.content-type'],
    ['charset=utf-16', 'application/json;charset="UTF-16"', 415, 'unsupported_media_type', 'headers.content-type'],
    ['charset=UTF-8', 'application/json; charset=UTF-8', 200, undefined, undefined],
    ['charset=utf-8 on text/plain', 'text/plain;charset=utf-8', 200, undefined, undefined],
    ['charset=utf8', 'application/json; charset=utf8', 415, 'unsupported_media_type', 'headers.content-type'],
  ])('%s', async (_name, type, status, code, path) => {
    const s = setup();
    const res = await request(s.app).post('/json').set('Content-Type', type).send('{"a":1}');
    expect([res.status, res.body.error?.code, res.body.error?.path]).toEqual([status, code, path]);
    expect(s.errorLines()).toEqual([]);
  });

  it.each([
    ['gzip', 'gzip', Buffer.from('1f8b0800000000000003ffffffff', 'hex')],
    ['deflate', 'deflate', Buffer.from('78 9c ff ff ff ff'.replace(/ /g, ''), 'hex')],
    ['gzip cut short', 'gzip', gzipSync('{"a":1}').subarray(0, 12)],
  ])('answers 400 invalid_request for a corrupt %s body', async (_name, encoding, bytes) => {
    const s = setup();
    const res = await request(s.app)
      .post('/json')
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', encoding)
      .serialize((b: Buffer) => b as unknown as string)
      .send(bytes);
    expect([res.status, res.body.error.code, res.body.error.path]).toEqual([400, 'invalid_request', '$']);
    expect(res.body.error.message).toMatch(/^The body could not be read: /);
    expect(s.errorLines()).toEqual([]);
  });

  it('still answers 500 internal, logged, for a fault of ours', async () => {
    const lines: unknown[] = [];
    const sink = new Writable({ write: (c: Buffer, _e, cb) => (lines.push(c.toString()), cb()) });
    const { app } = createHttpApp({
      logger: createLogger('t', 'info', sink),
      metricsPrefix: 'ci2',
      routes: (r) =>
        void r.get('/bug', () => {
          throw new TypeError('x is undefined');
        }),
    });
    const res = await request(app).get('/bug');
    expect([res.status, res.body.error.code]).toEqual([500, 'internal']);
    expect(lines).toHaveLength(1);
  });
});

describe('JSON nesting depth', () => {
  const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

  it('counts brackets outside strings only', () => {
    expect(nestsDeeperThan(Buffer.from(nested(64)), 64)).toBe(false);
    expect(nestsDeeperThan(Buffer.from(nested(65)), 64)).toBe(true);
    expect(nestsDeeperThan(Buffer.from(JSON.stringify({ s: '[[[[[[\\"[[[[' })), 2)).toBe(false);
    expect(nestsDeeperThan(Buffer.from('{"a":{"b":[{"c":1}]}}'), 3)).toBe(true);
  });

  it('names the first too-deep value, without recursion at 100,000 levels', () => {
    expect(firstTooDeepPath({ a: [1, { 'b c': [[]] }], z: [[[[]]]] }, 3)).toBe('$.a[1]["b c"]');
    const text = nested(100_000);
    expect(() => checkJsonDepth(Buffer.from(text), JSON.parse(text), 64)).toThrow(ApiError);
    try {
      checkJsonDepth(Buffer.from(text), JSON.parse(text), 2);
    } catch (err) {
      expect((err as ApiError).body()).toEqual({
        error: { code: 'too_deep', message: 'The body nests arrays and objects more than 2 levels deep.', path: '$[0][0]', details: { max_depth: 2 } },
      });
    }
  });
});

describe('Node-level client errors answer the JSON error shape', () => {
  let port = 0;
  let server: Awaited<ReturnType<typeof listen>>['server'];
  beforeAll(async () => {
    ({ server, port } = await listen(setup().app, 0, '127.0.0.1'));
  });
  afterAll(() => closeServer(server, { graceMs: 100 }));

  it.each([
    ['a malformed request line', 'GARBAGE\r\n\r\n', 400, 'malformed_request'],
    ['headers over the limit', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers_too_large'],
    ['an unsupported Expect', 'POST /json HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nContent-Length: 2\r\n\r\n{}', 417, 'expectation_failed'],
  ])('%s', async (_name, bytes, status, code) => {
    const answer = parseRaw(await rawExchange(port, bytes));
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.body).toEqual({ error: { code, message: expect.any(String), request_id: answer.headers['x-request-id'] } });
  });
});

describe('a client that sends its headers too slowly', () => {
  it('gets 408 request_timeout in the JSON error shape', async () => {
    // Node checks these timeouts every connectionsCheckingInterval (30 s by default): short here.
    const server = createServer({ headersTimeout: 200, requestTimeout: 300, connectionsCheckingInterval: 50 }, setup().app);
    answerClientErrorsAsJson(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as { port: number }).port;
      const answer = parseRaw(await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n'));
      expect(answer.status).toBe(408);
      expect(answer.body).toEqual({ error: { code: 'request_timeout', message: expect.any(String), request_id: answer.headers['x-request-id'] } });
    } finally {
      await closeServer(server, { graceMs: 100 });
    }
  });
});
