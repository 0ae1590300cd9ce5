import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PUBLIC_ROUTES, type PublicService } from '@evp/http';
import { loadActionStoreConfig } from '@evp/action-store';
import { loadGatewayConfig } from '@evp/gateway';
import { SEGMENT_BODY_LIMIT } from '@evp/segmenter';
import { NGINX_CONF, OPENAPI_ROOT, nginxLocations, nginxUpstreams, renderEdgeConf } from './testing/nginx-conf';

/** The nginx upstream each service of the route table is reached through, and where it listens in compose. */
const UPSTREAM: Record<PublicService, { name: string; server: string }> = {
  gateway: { name: 'gateway', server: 'gateway:8080' },
  'action-store': { name: 'action_store', server: 'action-store:8090' },
  segmenter: { name: 'segmenter', server: 'segmenter:8070' },
};

describe('deploy/edge/nginx.conf routes the route table', () => {
  const locations = nginxLocations();
  // ClickHouse's HTTP interface is the segmenter's in compose but no route of the table (npm start serves it in front of its edge).
  const isClickHouse = (l: { path: string }) => l.path === '/clickhouse' || l.path === '/clickhouse/';
  const proxied = locations.filter((l) => l.upstream !== undefined && !isClickHouse(l));

  it('proxies exactly the prefixes of the route table, each to its service', () => {
    const byUpstream = Object.fromEntries(Object.entries(UPSTREAM).map(([service, u]) => [u.name, service]));
    const fromConf = proxied.map((l) => ({ match: l.match, path: l.path, service: byUpstream[l.upstream as string] ?? `unknown upstream ${l.upstream}` }));
    const fromTable = PUBLIC_ROUTES.map((r) => ({ match: r.match, path: r.path, service: r.service }));
    const order = (a: { path: string; match: string }, b: { path: string; match: string }) => `${a.path} ${a.match}`.localeCompare(`${b.path} ${b.match}`);
    expect(fromConf.sort(order)).toEqual(fromTable.sort(order));
  });

  it('sends /clickhouse and /clickhouse/ to the segmenter, unbuffered', () => {
    const ch = locations.filter(isClickHouse).map((l) => ({ match: l.match, path: l.path, upstream: l.upstream, maxBodyBytes: l.maxBodyBytes }));
    expect(ch).toEqual([
      { match: 'exact', path: '/clickhouse', upstream: 'segmenter', maxBodyBytes: SEGMENT_BODY_LIMIT + 1024 * 1024 },
      { match: 'prefix', path: '/clickhouse/', upstream: 'segmenter', maxBodyBytes: SEGMENT_BODY_LIMIT + 1024 * 1024 },
    ]);
    for (const l of locations.filter(isClickHouse)) expect(l.body).toContain('proxy_buffering off;');
  });

  it('sends each upstream to the service’s own port in docker-compose.yml', () => {
    expect(nginxUpstreams()).toEqual({ gateway: UPSTREAM.gateway.server, action_store: UPSTREAM['action-store'].server, segmenter: UPSTREAM.segmenter.server });
    const compose = readFileSync(resolve(__dirname, '../../docker-compose.yml'), 'utf8');
    for (const { server } of Object.values(UPSTREAM)) {
      const [host, port] = server.split(':') as [string, string];
      const block = new RegExp(`\\n  ${host}:\\n(?:    .*\\n|\\n)*?      PORT: ${port}\\n`);
      expect([server, block.test(compose)]).toEqual([server, true]);
    }
    expect(compose).toContain('./deploy/edge/nginx.conf:/etc/nginx/nginx.conf:ro');
    expect(compose).toContain(`./docs/openapi.json:${OPENAPI_ROOT}/openapi.json:ro`);
    expect(compose).toContain("ports: ['8080:8080']");
  });

  it('lets each service answer its own 413: the edge allows 1 MiB more than the service’s body limit', () => {
    const limit: Record<PublicService, number> = {
      gateway: loadGatewayConfig({ KAFKA_BROKERS: 'kafka:9092', KEYS_FILE: 'keys.json' }).MAX_BODY_BYTES,
      'action-store': loadActionStoreConfig({ KEYS_FILE: 'keys.json' }).MAX_BODY_BYTES,
      // Only segment definitions and campaigns have bodies, with one limit.
      segmenter: SEGMENT_BODY_LIMIT,
    };
    expect(limit).toEqual({ gateway: 5 * 1024 * 1024, 'action-store': 16 * 1024 * 1024, segmenter: 256 * 1024 });
    // Fetches and the inspector take no body: nginx's 1 MiB default is plenty.
    const bodiless = new Set([
      '/v1/nudge/',
      '/nudge/',
      '/v1/ingest/requests/',
      '/v1/inspect/',
      '/inspector',
      '/console',
      '/console/',
      '/v1/users/',
      '/sdk/',
      '/v1/keys',
      '/v1/keys/user-tokens',
      '/v1/audit/reads',
      '/v1/audit/verify',
      '/console/keys',
    ]);
    for (const r of PUBLIC_ROUTES) {
      const l = proxied.find((p) => p.path === r.path && p.match === r.match);
      expect([r.path, l?.maxBodyBytes]).toEqual([r.path, bodiless.has(r.path) ? undefined : limit[r.service] + 1024 * 1024]);
    }
  });

  it('serves the OpenAPI document of every public route itself, from the file docker-compose mounts', () => {
    const own = locations.find((l) => l.path === '/openapi.json');
    expect([own?.match, own?.upstream, own?.body.match(/^\s*(root|add_header) .*;$/gm)?.map((d) => d.trim())]).toEqual([
      'exact',
      undefined,
      ['add_header X-Request-Id $edge_request_id always;', `root ${OPENAPI_ROOT};`],
    ]);
  });

  it('passes the request id and the client address to the services', () => {
    const conf = readFileSync(NGINX_CONF, 'utf8');
    expect(conf).toMatch(/proxy_set_header X-Request-Id \$edge_request_id;/);
    expect(conf).toMatch(/proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
    expect(conf).toMatch(/proxy_set_header X-Real-IP \$remote_addr;/);
  });

  it('answers unknown paths, oversize bodies and a down service in the JSON error shape', () => {
    const own = Object.fromEntries(locations.filter((l) => l.upstream === undefined).map((l) => [l.path, /return (\d+) '(.*)';/.exec(l.body)?.slice(1)]));
    const code = (path: string) => {
      const [status, body] = own[path] as [string, string];
      return [Number(status), (JSON.parse(body.replace(/\$edge_request_id/g, 'r-1')) as { error?: { code: string } }).error?.code];
    };
    expect([code('/'), code('@payload_too_large'), code('@unavailable')]).toEqual([
      [404, 'not_found'],
      [413, 'payload_too_large'],
      [503, 'unavailable'],
    ]);
    expect(code('/healthz')).toEqual([200, undefined]);
  });

  it('passes on to the next replica only what was not sent (never a POST already sent) and renders any number of replicas', () => {
    const conf = readFileSync(NGINX_CONF, 'utf8');
    // Idle upstream connections close at the edge before Node's keepAliveTimeout (5 s) closes them.
    expect(conf.match(/^\s*keepalive_timeout .*;$/gm)?.map((d) => d.trim())).toEqual([
      'keepalive_timeout 4s;',
      'keepalive_timeout 4s;',
      'keepalive_timeout 4s;',
    ]);
    expect(conf.match(/^\s*proxy_next_upstream\S* .*;$/gm)?.map((d) => d.trim())).toEqual([
      'proxy_next_upstream error timeout;',
      'proxy_next_upstream_tries 2;',
    ]);
    const rendered = renderEdgeConf({
      upstreams: { gateway: ['127.0.0.1:1', '127.0.0.1:2'], action_store: ['127.0.0.1:3', '127.0.0.1:4'], segmenter: ['127.0.0.1:5', '127.0.0.1:6'] },
      listen: '127.0.0.1:7',
      pidFile: '/run/x.pid',
      openapiRoot: '/srv/openapi',
    });
    const servers = (name: string) => new RegExp(`upstream ${name} \\{([^}]*)\\}`).exec(rendered)?.[1]?.match(/server \S+;/g);
    expect([servers('gateway'), servers('action_store'), servers('segmenter')]).toEqual([
      ['server 127.0.0.1:1;', 'server 127.0.0.1:2;'],
      ['server 127.0.0.1:3;', 'server 127.0.0.1:4;'],
      ['server 127.0.0.1:5;', 'server 127.0.0.1:6;'],
    ]);
    expect([rendered.includes('listen 127.0.0.1:7;'), rendered.includes('pid /run/x.pid;'), rendered.includes('root /srv/openapi;')]).toEqual([
      true,
      true,
      true,
    ]);
    // Everything else is the file as docker-compose mounts it.
    expect(nginxLocations(rendered).map((l) => l.body.replace('/srv/openapi', OPENAPI_ROOT))).toEqual(locations.map((l) => l.body));
  });
});
