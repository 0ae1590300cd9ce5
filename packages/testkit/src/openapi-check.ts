import type { Express } from 'express';

/**
 * Checks of an app against its OpenAPI fragment (packages/http/src/openapi.ts), shared by every
 * service's openapi.test.ts: which routes the Express app really has, and whether an answer it gave
 * is described — its status, and its JSON body against the described schema.
 */

type Layer = { route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } };

function routesOf(stack: Layer[]): string[] {
  return stack.flatMap((l): string[] => {
    if (l.route) return Object.keys(l.route.methods).map((m) => `${m} ${l.route!.path.replace(/:(\w+)/g, '{$1}')}`);
    return l.handle?.stack ? routesOf(l.handle.stack) : [];
  });
}

/** Every `method path` an Express 5 app routes (its own and nested routers'), paths templated as OpenAPI's `{name}`, sorted. */
export const expressRoutes = (app: Express): string[] => routesOf((app as unknown as { router: { stack: Layer[] } }).router.stack).sort();

type Paths = Record<string, Partial<Record<string, { responses: Record<string, unknown> }>>>;

/** Every `method path` the paths describe, sorted; `except` leaves out methods (e.g. CORS preflights no route answers). */
export function describedRoutes(paths: Paths, except: readonly string[] = []): string[] {
  return Object.entries(paths)
    .flatMap(([p, ops]) => Object.keys(ops).flatMap((m) => (except.includes(m) ? [] : [`${m} ${p}`])))
    .sort();
}

/** One answer an app gave, by the route template it was for. */
export interface SeenAnswer {
  template: string;
  method: string;
  status: number;
  contentType?: string;
  body?: unknown;
}

/**
 * What is wrong with the description of each answer: a status the operation does not list, or a
 * JSON body that does not match the schema the status describes. Empty when every answer is described.
 */
export function undescribedAnswers(doc: { paths: Paths; schemas: Record<string, object> }, seen: readonly SeenAnswer[]): string[] {
  const problems: string[] = [];
  for (const a of seen) {
    const at = `${a.method.toUpperCase()} ${a.template} ${a.status}`;
    const response = doc.paths[a.template]?.[a.method]?.responses[String(a.status)] as { content?: Record<string, { schema?: object }> } | undefined;
    if (!response) {
      problems.push(`${at}: status not described`);
      continue;
    }
    if (!a.contentType?.startsWith('application/json')) continue;
    const schema = response.content?.['application/json']?.schema;
    if (!schema) {
      problems.push(`${at}: a JSON body, but no JSON content described`);
      continue;
    }
    problems.push(...schemaProblems(schema, a.body, doc.schemas).map((p) => `${at}: ${p}`));
  }
  return problems;
}

const KNOWN = new Set([
  '$ref',
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'oneOf',
  'anyOf',
  'allOf',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'description',
  'format',
]);

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/**
 * Where `value` breaks `schema` (the subset of JSON Schema 2020-12 the fragments use; any other
 * keyword throws, so a check is never silently skipped). `$ref`s resolve in `schemas`.
 */
export function schemaProblems(schema: object, value: unknown, schemas: Record<string, object>, path = '$'): string[] {
  const s = schema as Record<string, unknown>;
  for (const k of Object.keys(s)) if (!KNOWN.has(k)) throw new Error(`schemaProblems does not check the keyword ${k} (at ${path})`);
  const out: string[] = [];
  if (typeof s.$ref === 'string') {
    const target = schemas[s.$ref.replace('#/components/schemas/', '')];
    if (!target) return [`${path}: unresolved ${s.$ref}`];
    out.push(...schemaProblems(target, value, schemas, path));
  }
  const t = typeOf(value);
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
    if (!types.includes(t) && !(t === 'integer' && types.includes('number'))) return [...out, `${path}: ${t}, expected ${types.join(' or ')}`];
  }
  if (s.enum && !(s.enum as unknown[]).includes(value)) out.push(`${path}: ${JSON.stringify(value)} not in enum`);
  if ('const' in s && s.const !== value) out.push(`${path}: ${JSON.stringify(value)} is not ${JSON.stringify(s.const)}`);
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) out.push(`${path}: below ${s.minimum}`);
    if (typeof s.maximum === 'number' && value > s.maximum) out.push(`${path}: above ${s.maximum}`);
  }
  if (typeof value === 'string') {
    if (typeof s.minLength === 'number' && value.length < s.minLength) out.push(`${path}: shorter than ${s.minLength}`);
    if (typeof s.maxLength === 'number' && value.length > s.maxLength) out.push(`${path}: longer than ${s.maxLength}`);
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(value)) out.push(`${path}: does not match ${s.pattern}`);
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === 'number' && value.length < s.minItems) out.push(`${path}: fewer than ${s.minItems} items`);
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) out.push(`${path}: more than ${s.maxItems} items`);
    if (s.items) value.forEach((v, i) => out.push(...schemaProblems(s.items as object, v, schemas, `${path}[${i}]`)));
  }
  if (t === 'object') {
    const o = value as Record<string, unknown>;
    for (const r of (s.required as string[] | undefined) ?? []) if (!Object.hasOwn(o, r)) out.push(`${path}: ${r} missing`);
    const props = (s.properties as Record<string, object> | undefined) ?? {};
    for (const [k, v] of Object.entries(o)) {
      if (Object.hasOwn(props, k)) out.push(...schemaProblems(props[k] as object, v, schemas, `${path}.${k}`));
      else if (s.additionalProperties === false) out.push(`${path}: ${k} is not described`);
      else if (typeof s.additionalProperties === 'object') out.push(...schemaProblems(s.additionalProperties as object, v, schemas, `${path}.${k}`));
    }
  }
  for (const sub of (s.allOf as object[] | undefined) ?? []) out.push(...schemaProblems(sub, value, schemas, path));
  const one = s.oneOf as object[] | undefined;
  if (one) {
    const matching = one.filter((sub) => schemaProblems(sub, value, schemas, path).length === 0).length;
    if (matching !== 1) out.push(`${path}: matches ${matching} of oneOf's ${one.length} schemas, expected 1`);
  }
  const any = s.anyOf as object[] | undefined;
  if (any && !any.some((sub) => schemaProblems(sub, value, schemas, path).length === 0)) out.push(`${path}: matches none of anyOf`);
  return out;
}
