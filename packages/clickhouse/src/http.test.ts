import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InfraError } from '@evp/core';
import { createClickHouseHttpAnalytics } from './http';
import { JsonRow } from './json-row';
import { RowBinaryWriter, rowBinaryEncoder } from './rowbinary';

// No ClickHouse server runs on this machine, so the HTTP adapter is checked on what it adds over the
// shared client code: how transport failures and server error answers become InfraErrors. The
// statement semantics are covered by the conformance suite on chdb (same client code).

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function caught(p: Promise<unknown>): Promise<InfraError> {
  try {
    await p;
  } catch (err) {
    return err as InfraError;
  }
  throw new Error('expected a rejection');
}

const options = (url: string) => ({ url, username: 'default', password: '', database: 'evp', requestTimeoutMs: 2_000 });

describe('createClickHouseHttpAnalytics', () => {
  it('reports a refused connection as retriable and ping as false', async () => {
    const { server, url } = await listen(() => undefined);
    await new Promise<void>((r) => server.close(() => r()));
    const analytics = createClickHouseHttpAnalytics(options(url));
    try {
      const e = await caught(analytics.query('SELECT 1'));
      expect(e).toBeInstanceOf(InfraError);
      expect({ retriable: e.retriable, dependency: e.dependency }).toEqual({ retriable: true, dependency: 'clickhouse' });
      expect(e.message).toContain('server unreachable');
      expect(await analytics.ping()).toBe(false);
    } finally {
      await analytics.close();
    }
  });

  it('reports a server error answer by its ClickHouse code, and a proxy 503 as retriable', async () => {
    const seen: string[] = [];
    let answer: 'server' | 'proxy' = 'server';
    const { server, url } = await listen((req, res) => {
      seen.push(req.url ?? '');
      if (answer === 'proxy') {
        res.writeHead(503, { 'content-type': 'text/html' }).end('<html><h1>503 Service Unavailable</h1></html>');
        return;
      }
      res
        .writeHead(400, { 'x-clickhouse-exception-code': '62' })
        .end("Code: 62. DB::Exception: Syntax error: failed at position 1 ('SELEC'): SELEC 1. (SYNTAX_ERROR) (version 25.8.1.1)\n");
    });
    const analytics = createClickHouseHttpAnalytics(options(url));
    try {
      const syntax = await caught(analytics.query('SELEC 1'));
      expect({ retriable: syntax.retriable, message: syntax.message }).toEqual({
        retriable: false,
        message: "clickhouse: query failed (code 62): Syntax error: failed at position 1 ('SELEC'): SELEC 1.",
      });
      answer = 'proxy';
      const proxy = await caught(analytics.command('SELECT 1'));
      expect(proxy.retriable).toBe(true);
      // The database is sent with every request (HTTP has no session to remember it).
      expect(seen.every((u) => u.includes('database=evp'))).toBe(true);
    } finally {
      await analytics.close();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('sends value arrays as JSONCompactEachRow with the column list, one JSON array per line', async () => {
    const seen: { query: string; body: string }[] = [];
    const { server, url } = await listen((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        seen.push({ query: new URL(req.url ?? '', 'http://x').searchParams.get('query') ?? '', body });
        res.writeHead(200, { 'x-clickhouse-summary': '{}' }).end('');
      });
    });
    const analytics = createClickHouseHttpAnalytics(options(url));
    try {
      await analytics.insert(
        't',
        [
          ['a\tb\n"c"\\', null, { k: 'v' }],
          ['ü', 1, {}],
        ],
        { columns: ['s', 'n', 'doc'], dedupToken: 'tok' },
      );
      await analytics.insert('t', [{ s: 'x' }]);
      // Rows serialized ahead are sent as their text, beside rows the client serializes.
      await analytics.insert('t', [new JsonRow('["pre",2,{"k":[1]}]'), ['x\ud800', null, {}]], { columns: ['s', 'n', 'doc'] });
      await analytics.insert('t', [new JsonRow('{"s":"pre"}')]);
      expect(seen).toEqual([
        { query: 'INSERT INTO t (s, n, doc) FORMAT JSONCompactEachRow', body: '["a\\tb\\n\\"c\\"\\\\",null,{"k":"v"}]\n["ü",1,{}]\n' },
        { query: 'INSERT INTO t FORMAT JSONEachRow', body: '{"s":"x"}\n' },
        { query: 'INSERT INTO t (s, n, doc) FORMAT JSONCompactEachRow', body: '["pre",2,{"k":[1]}]\n["x\ufffd",null,{}]\n' },
        { query: 'INSERT INTO t FORMAT JSONEachRow', body: '{"s":"pre"}\n' },
      ]);
    } finally {
      await analytics.close();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('sends RowBinary rows as the body of INSERT … FORMAT RowBinary, byte for byte, with the insert settings', async () => {
    const seen: { params: Record<string, string>; body: Buffer }[] = [];
    const { server, url } = await listen((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const params = Object.fromEntries(new URL(req.url ?? '', 'http://x').searchParams);
        seen.push({ params, body: Buffer.concat(chunks) });
        res.writeHead(200, { 'x-clickhouse-summary': '{}' }).end('');
      });
    });
    const analytics = createClickHouseHttpAnalytics(options(url));
    try {
      // The same kinds of bytes the conformance suite inserts into chdb: two newlines, NUL, ≥ 0x80,
      // a DateTime64 whose low bytes are 0x0A 0x0A.
      const types = ['String', "DateTime64(3, 'UTC')", 'JSON'];
      const w = new RowBinaryWriter();
      const rows = [
        ['a\n\nb\u0000ü😀', 0x0a0a, '{"k":"2024-01-01"}'],
        ['', 1, '{}'],
      ].map((values) => {
        types.forEach((t, i) => rowBinaryEncoder(t)(w, values[i]));
        return w.row();
      });
      await analytics.insertRowBinary('t', { columns: ['s', 'at', 'doc'], types, rows }, { dedupToken: 'tok' });
      await analytics.insertRowBinary('t', { columns: ['s', 'at', 'doc'], types, rows: [] });
      expect(seen).toEqual([
        {
          params: expect.objectContaining({
            query: 'INSERT INTO t (s, at, doc) FORMAT RowBinary',
            database: 'evp',
            input_format_try_infer_dates: '0',
            input_format_try_infer_datetimes: '0',
            input_format_binary_read_json_as_string: '1',
            insert_deduplication_token: 'tok',
          }),
          body: Buffer.concat(rows),
        },
      ]);
      expect(seen[0]?.body.toString('hex')).toBe(
        '0b' +
          Buffer.from('a\n\nb\u0000ü😀').toString('hex') +
          '0a0a000000000000' +
          '12' +
          Buffer.from('{"k":"2024-01-01"}').toString('hex') +
          '00' +
          '0100000000000000' +
          '02' +
          Buffer.from('{}').toString('hex'),
      );
    } finally {
      await analytics.close();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('refuses a database name that is not an identifier', () => {
    expect(() => createClickHouseHttpAnalytics({ ...options('http://127.0.0.1:1'), database: 'evp;drop' })).toThrow('invalid database name "evp;drop"');
  });
});
