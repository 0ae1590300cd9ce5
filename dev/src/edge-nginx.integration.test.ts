import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { RedisActionStore, systemClock } from '@evp/actions';
import { createActionStoreApp } from '@evp/action-store';
import { allTopics, createLogger, type BusProducer } from '@evp/core';
import { createGatewayApp } from '@evp/gateway';
import { closeServer, listen } from '@evp/http';
import { createKafkaBus } from '@evp/kafka';
import { bundleConsole } from '@evp/console';
import { createSegmenterApp, loadConsoleAssets } from '@evp/segmenter';
import { deletePrefix, randomActionPrefix, requireProgram, useMigratedChdb, waitFor } from '@evp/testkit';
import { renderEdgeConf } from './testing/nginx-conf';
import { oneEventEnvelope, sdkPullBody } from './testing/one-event';
import { API_KEY, SDK_KEY, e2eKeys } from './testing/scenario';

/** Where docs/openapi.json is: the directory docker-compose mounts the file from. */
const DOCS = resolve(__dirname, '../../docs');

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s: Server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.once('error', reject);
  });

/**
 * The real edge: nginx (Debian's package, the same config docker-compose mounts) in front of the
 * gateway on the real broker and the action store on real Redis, each on its own port. The only
 * change to the file is where things are: the compose host names become this machine's ports.
 */
describe('deploy/edge/nginx.conf with a real nginx in front of the services', () => {
  const logger = createLogger('edge', 'silent');
  const redis = new Redis(process.env.REDIS_URL as string);
  const prefix = randomActionPrefix();
  const SHOP = 'https://shop.example';
  const bus = createKafkaBus({ brokers: (process.env.KAFKA_BROKERS as string).split(','), clientId: 'edge-nginx', logger });
  const chdb = useMigratedChdb('edge');
  const dir = mkdtempSync(join(tmpdir(), 'edge-nginx-'));
  const conf = join(dir, 'nginx.conf');
  const servers: HttpServer[] = [];
  let producer: BusProducer;
  let nginx: ChildProcess;
  let base: string;

  beforeAll(async () => {
    await bus.ensureTopics(allTopics());
    producer = await bus.producer();
    const gateway = createGatewayApp({
      producer,
      keys: e2eKeys(),
      logger,
      corsOrigins: [SHOP],
      limits: { maxBodyBytes: 5 * 1024 * 1024, maxEventsPerRequest: 5000, retryAfterSeconds: 5 },
    });
    // Each service with the same allow-list, as CORS_ORIGINS=https://shop.example gives all three in the stack.
    const actions = createActionStoreApp({
      store: new RedisActionStore({ redis, clock: systemClock(), prefix }),
      keys: e2eKeys(),
      logger,
      corsOrigins: [SHOP],
    });
    // The console's build, as npm start builds it: the inspector page is one of its pages.
    const segmenter = createSegmenterApp({
      analytics: chdb.analytics,
      keys: e2eKeys(),
      logger,
      corsOrigins: [SHOP],
      console: loadConsoleAssets({ build: await bundleConsole() }),
    });
    const g = await listen(gateway.app, 0, '127.0.0.1');
    const a = await listen(actions.app, 0, '127.0.0.1');
    const s = await listen(segmenter.app, 0, '127.0.0.1');
    servers.push(g.server, a.server, s.server);
    const port = await freePort();
    // As docker-compose mounts it: a copy nginx's workers (another user when the master runs as root)
    // can read wherever the checkout lives (a 0700 temporary directory, say).
    const openapiRoot = join(dir, 'openapi');
    mkdirSync(openapiRoot);
    copyFileSync(join(DOCS, 'openapi.json'), join(openapiRoot, 'openapi.json'));
    for (const d of [dir, openapiRoot]) chmodSync(d, 0o755);
    writeFileSync(
      conf,
      renderEdgeConf({
        upstreams: { gateway: [`127.0.0.1:${g.port}`], action_store: [`127.0.0.1:${a.port}`], segmenter: [`127.0.0.1:${s.port}`] },
        listen: `127.0.0.1:${port}`,
        pidFile: join(dir, 'nginx.pid'),
        openapiRoot,
      }),
    );
    base = `http://127.0.0.1:${port}`;
    nginx = spawn(requireProgram('nginx'), ['-p', dir, '-e', 'stderr', '-c', conf, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'inherit'] });
    await waitFor(async () => (await fetch(`${base}/healthz`)).status === 200, { what: 'nginx to answer /healthz', timeoutMs: 15_000 });
  }, 60_000);
  afterAll(async () => {
    nginx?.kill('SIGQUIT');
    await Promise.allSettled(servers.map((s) => closeServer(s)));
    await producer?.close();
    await bus.close();
    await deletePrefix(redis, prefix);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  const send = async (method: string, path: string, opts: { key?: string; body?: string; requestId?: string } = {}) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
    if (opts.requestId) headers['X-Request-Id'] = opts.requestId;
    const res = await fetch(`${base}${path}`, { method, headers, body: opts.body });
    return { status: res.status, requestId: res.headers.get('x-request-id'), body: (await res.json()) as Record<string, any> };
  };
  const envelope = oneEventEnvelope;

  it.each([
    ['POST', '/v1/ingest/log', 'the gateway'],
    ['GET', '/v1/ingest/requests/r-1', 'the segmenter'],
    ['POST', '/v1/action/sdk/pull', 'the action store'],
  ])('passes the preflight of %s %s through to %s: the allowed origin gets CORS, another none', async (method, path) => {
    const preflight = async (origin: string) => {
      const res = await fetch(`${base}${path}`, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'authorization' },
      });
      await res.arrayBuffer();
      return [res.status, res.headers.get('access-control-allow-origin'), res.headers.get('access-control-allow-methods')?.includes(method) ?? false];
    };
    expect(await preflight(SHOP)).toEqual([204, SHOP, true]);
    expect(await preflight('https://elsewhere.example')).toEqual([204, null, false]);
  });

  it('passes `nginx -t` with the compose host names replaced by ports', () => {
    // stdout to /dev/null: the config logs access to /dev/stdout, which nginx cannot open on a pipe.
    const t = spawnSync(requireProgram('nginx'), ['-p', dir, '-e', 'stderr', '-t', '-c', conf], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
    expect([t.status, t.stderr]).toEqual([0, expect.stringContaining('test is successful')]);
  });

  it('routes uploads to the gateway and action pulls to the action store on the one port', async () => {
    expect(await send('POST', '/v1/ingest/log', { body: JSON.stringify(envelope), requestId: 'edge-1' })).toMatchObject({
      status: 401,
      requestId: 'edge-1',
      body: { error: { code: 'auth_missing', request_id: 'edge-1' } },
    });
    expect(await send('POST', '/v1/ingest/log', { key: SDK_KEY, body: JSON.stringify(envelope) })).toMatchObject({ status: 200, body: { accepted: 1 } });
    expect(await send('POST', '/v1/action/sdk/pull', { key: SDK_KEY, body: JSON.stringify(sdkPullBody) })).toMatchObject({
      status: 200,
      body: { data: [], more: false },
    });
    expect(await send('GET', '/v1/actions/1/stats', { key: API_KEY })).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found', message: 'No action 1 in this app.' } },
    });
  });

  it('routes request verdicts, the inspector API and its page to the segmenter (the longer prefix beats /v1/ingest/)', async () => {
    expect(await send('GET', '/v1/ingest/requests/r-none', { key: SDK_KEY })).toMatchObject({ status: 200, body: { request_id: 'r-none', status: 'pending' } });
    expect(await send('GET', '/v1/inspect/events', { key: API_KEY })).toEqual({ status: 200, requestId: expect.any(String), body: { data: [] } });
    const page = await fetch(`${base}/inspector`);
    const html = await page.text();
    expect([page.status, page.headers.get('content-type'), html.includes('<title>Event inspector · console</title>')]).toEqual([
      200,
      'text/html; charset=utf-8',
      true,
    ]);
    // Its script is a file of the console's build, under /console/assets/ (content-hashed).
    const script = /<script src="(\/console\/assets\/inspector-[A-Z0-9]+\.js)"><\/script>/.exec(html)?.[1];
    expect((await fetch(`${base}${script}`)).status).toBe(200);
  });

  it('serves the OpenAPI document of every public route itself: docs/openapi.json, as JSON', async () => {
    const res = await fetch(`${base}/openapi.json`, { headers: { 'X-Request-Id': 'edge-3' } });
    expect([res.status, res.headers.get('content-type'), res.headers.get('x-request-id')]).toEqual([200, 'application/json', 'edge-3']);
    expect(await res.text()).toBe(readFileSync(join(DOCS, 'openapi.json'), 'utf8'));
  });

  it('answers an unknown path 404 in the JSON error shape with the client’s request id', async () => {
    expect(await send('GET', '/v2/nope', { requestId: 'edge-2' })).toEqual({
      status: 404,
      requestId: 'edge-2',
      body: { error: { code: 'not_found', message: 'No such route or resource.', request_id: 'edge-2' } },
    });
  });

  it('lets the gateway answer a body just over its limit, and answers 413 itself past the edge’s', async () => {
    const pad = (bytes: number) => JSON.stringify({ ...envelope, pad: 'x'.repeat(bytes) });
    const gateway = await send('POST', '/v1/ingest/log', { key: SDK_KEY, body: pad(5 * 1024 * 1024 + 1024) });
    expect([gateway.status, gateway.body.error.code, gateway.body.error.details]).toEqual([413, 'payload_too_large', expect.anything()]);
    const edge = await send('POST', '/v1/ingest/log', { key: SDK_KEY, body: pad(6 * 1024 * 1024 + 1024) });
    expect([edge.status, edge.body.error.code, edge.body.error.details]).toEqual([413, 'payload_too_large', undefined]);
  });

  it('closes the connection instead of answering 503 on the status-blind paths when the gateway is down (last: stops it)', async () => {
    await closeServer(servers[0] as HttpServer);
    const log = await send('POST', '/v1/ingest/log', { key: SDK_KEY, body: JSON.stringify(envelope) });
    expect([log.status, log.body.error.code]).toEqual([503, 'unavailable']);
    await expect(send('POST', '/v1/ingest/events', { key: SDK_KEY, body: JSON.stringify(envelope) })).rejects.toThrow(/fetch failed/);
    await expect(send('POST', '/v1/ingest/catalog/user', { key: SDK_KEY, body: '[]' })).rejects.toThrow(/fetch failed/);
  });
});
