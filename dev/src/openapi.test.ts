import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { actionStoreOpenApi } from '@evp/action-store';
import { gatewayOpenApi } from '@evp/gateway';
import { EDGE_PATHS, PUBLIC_ROUTES, assembleOpenApi, edgeOpenApi, serviceForPath, type OpenApiFragment } from '@evp/http';
import { clickhouseHttpOpenApi } from '@evp/clickhouse-http';
import { segmenterOpenApi } from '@evp/segmenter';
import { platformOpenApi } from './openapi';

const doc = platformOpenApi();
const fragments: OpenApiFragment[] = [edgeOpenApi(), gatewayOpenApi(), segmenterOpenApi(), actionStoreOpenApi(), clickhouseHttpOpenApi()];
/** A concrete path of a template: `/v1/actions/{action_id}/stats` → `/v1/actions/p/stats`. */
const concrete = (template: string) => template.replace(/\{\w+\}/g, 'p');

describe('the OpenAPI document of the base URL', () => {
  it('is docs/openapi.json (rewrite it with `npx tsx dev/src/write-openapi.ts`)', () => {
    const file = readFileSync(join(__dirname, '../../docs/openapi.json'), 'utf8');
    expect(file).toBe(`${JSON.stringify(doc, null, 2)}\n`);
  });

  it('has the client types generated from it in dev/src/generated/openapi.ts (the same command rewrites them)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(__dirname, 'openapi-client-types.ts')], {
      cwd: join(__dirname, '../..'),
      maxBuffer: 16 << 20,
    });
    expect(readFileSync(join(__dirname, 'generated/openapi.ts'), 'utf8')).toBe(stdout);
  });

  it('describes each path in the fragment of the service the route table sends it to, and the edge’s own paths in the edge’s', () => {
    const owners = fragments.flatMap((f) => Object.keys(f.paths).map((p) => [p, f.service]));
    expect(owners.map(([p]) => [p, serviceForPath(concrete(p as string)) ?? 'edge'])).toEqual(owners);
    expect(Object.keys(edgeOpenApi().paths).sort()).toEqual([...EDGE_PATHS].sort());
    expect(Object.keys(doc.paths).sort()).toEqual(owners.map(([p]) => p).sort());
  });

  it('describes at least one path of every entry of the route table', () => {
    const undescribed = PUBLIC_ROUTES.filter((r) =>
      Object.keys(doc.paths).every((p) => (r.match === 'exact' ? concrete(p) !== r.path : !concrete(p).startsWith(r.path))),
    );
    expect(undescribed).toEqual([]);
  });

  it('resolves every $ref, and every operation lists its answers', () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/(\w+)"/g)].map((m) => m[1] as string);
    expect(refs.filter((r) => !(r in doc.components.schemas))).toEqual([]);
    // Every schema is used (a leftover name would document a shape nothing answers).
    expect(Object.keys(doc.components.schemas).filter((name) => !refs.includes(name))).toEqual([]);
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) expect([path, method, Object.keys(op.responses).length > 0]).toEqual([path, method, true]);
    }
  });

  // What redocly.yaml's operation-2xx-response and operation-4xx-response would check, where it holds.
  it('describes a success for every operation but GET /console (a redirect), and a 4xx for every one that takes a key, a body or a query parameter', () => {
    const ops = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ at: `${method} ${path}`, op })));
    expect(ops.filter(({ op }) => !Object.keys(op.responses).some((s) => s.startsWith('2'))).map(({ at }) => at)).toEqual(['get /console']);
    const takesInput = (op: (typeof ops)[number]['op']) =>
      op.security?.length !== 0 || op.requestBody !== undefined || (op.parameters ?? []).some((p) => (p as { in: string }).in === 'query');
    const without4xx = ops.filter(({ op }) => takesInput(op) && !Object.keys(op.responses).some((s) => s.startsWith('4')));
    expect(without4xx.map(({ at }) => at)).toEqual([]);
  });

  it('refuses two fragments describing one path, or one schema name two ways', () => {
    const segmenter = segmenterOpenApi();
    expect(() => assembleOpenApi(doc.info, [gatewayOpenApi(), { ...segmenter, paths: { '/v1/ingest/log': {} } }])).toThrow(
      '/v1/ingest/log is described by both gateway and segmenter',
    );
    expect(() => assembleOpenApi(doc.info, [gatewayOpenApi(), { ...segmenter, schemas: { Accepted: { type: 'string' } } }])).toThrow(
      'schema Accepted is defined differently by segmenter',
    );
  });
});
