import { errorCodes, type ErrorCode } from '@evp/core';
import type { PublicService } from './public-routes';

/**
 * The building blocks of the one OpenAPI 3.1 document of the base URL. Each service describes its
 * own routes in a fragment that lives beside its app (services never import each other); the dev
 * package, which composes every part for `npm start`, assembles the fragments into one document
 * (dev/src/openapi.ts) and writes it to docs/openapi.json. What every fragment shares — the error
 * shape from the one error-code registry, the key schemes, the edge's own paths — is here.
 */

export type HttpMethod = 'get' | 'post' | 'put' | 'delete' | 'options';

export interface OpenApiOperation {
  /**
   * The operation's name in generated clients (`createActions`, `pullActions`): chosen by hand and
   * never derived from the path, so that a client's method names stay when a path moves. Changing
   * one breaks every generated client that calls it.
   */
  operationId: string;
  summary: string;
  description?: string;
  /** Omitted: the document's default (the SDK key); `[]` for no key. */
  security?: Record<string, string[]>[];
  parameters?: object[];
  requestBody?: object;
  responses: Record<string, object>;
}

export type OpenApiPaths = Record<string, Partial<Record<HttpMethod, OpenApiOperation>>>;

/** What one part of the platform answers on the base URL: its paths and the schemas they refer to. */
export interface OpenApiFragment {
  /** Whose routes these are: a service of the route table, or the edge itself. */
  service: PublicService | 'edge';
  paths: OpenApiPaths;
  schemas: Record<string, object>;
}

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: object) => ({ 'application/json': { schema } });

export const retryAfterHeader = { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } } };
export const requestIdHeader = { 'X-Request-Id': { description: "The request id (the client's own when well-formed).", schema: { type: 'string' } } };

/** An error answer: the one error shape, its code narrowed to `codes`. */
export function errorResponse(description: string, codes: readonly ErrorCode[], headers: object = {}) {
  return {
    description: `${description} Codes: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
    headers: { ...requestIdHeader, ...headers },
    content: json({ allOf: [ref('Error')], properties: { error: { properties: { code: { enum: codes } } } } }),
  };
}

/** An object with exactly these properties (an answer gaining a field fails the fragments' tests until it is described). */
export const closedObject = (required: string[], properties: Record<string, object>, description?: string) => ({
  type: 'object',
  ...(description ? { description } : {}),
  required,
  properties,
  additionalProperties: false,
});

/** A value of `type` or null. */
export const nullable = (type: string, extra: object = {}) => ({ type: [type, 'null'], ...extra });

/** A JSON request body as every service reads it: JSON, or text/plain holding JSON; gzip or deflate. */
export const jsonRequestBody = (schema: object, description: string) => ({
  required: true,
  description: `${description} Also sent as \`text/plain\` holding JSON (a browser's simple request, navigator.sendBeacon). \`Content-Encoding: gzip\` or \`deflate\` is accepted; limits apply after decompression.`,
  content: { 'application/json': { schema }, 'text/plain': { schema: { type: 'string', description: 'JSON text of the same shape.' } } },
});

/**
 * A CORS preflight (OPTIONS) of a route browsers may call with the SDK key. `parameters`: the path's
 * own parameters, which every operation of a templated path must define (OpenAPI 3.1, 4.8.12.1).
 */
export const corsPreflight = (operationId: string, description: string, parameters: object[] = []): OpenApiOperation => ({
  operationId,
  summary: 'CORS preflight',
  security: [],
  ...(parameters.length > 0 ? { parameters } : {}),
  responses: { '204': { description } },
});

/** A success answer with a JSON body. */
export const jsonResponse = (description: string, schema: object) => ({ description, headers: requestIdHeader, content: json(schema) });

export type KeyRole = 'sdk' | 'api' | 'sdk or api';

/** `security` of an operation and the 401/403 it answers for a missing, unknown or wrong key. */
export function keyed(role: KeyRole): { security: Record<string, string[]>[]; responses: Record<string, object> } {
  const security: Record<string, string[]>[] = role === 'sdk' ? [{ sdkKey: [] }] : role === 'api' ? [{ apiKey: [] }] : [{ sdkKey: [] }, { apiKey: [] }];
  const responses: Record<string, object> = {
    '401': errorResponse('No key, an unknown key, or a revoked one.', ['auth_missing', 'auth_invalid', 'key_revoked']),
  };
  if (role !== 'sdk or api') responses['403'] = errorResponse(`The key is not an ${role === 'sdk' ? 'SDK' : 'API'} key.`, ['forbidden_role']);
  return { security, responses };
}

export const internalError = errorResponse('An unexpected error, logged with the request id.', ['internal']);

/** 503 + Retry-After when the service's store does not answer: nothing was changed. */
export const unavailable = (what: string) =>
  errorResponse(`${what} did not answer; nothing was changed. Retry after \`Retry-After\`.`, ['unavailable'], retryAfterHeader);

/** A path parameter that is a plain string. */
export const pathParam = (name: string, schema: object, description?: string) => ({
  name,
  in: 'path',
  required: true,
  schema,
  ...(description ? { description } : {}),
});
/** An optional query parameter. */
export const queryParam = (name: string, schema: object, description: string, required = false) => ({ name, in: 'query', required, schema, description });

const errorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: Object.keys(errorCodes) },
        message: { type: 'string' },
        path: {
          type: 'string',
          description: 'JSON path into the body ($, $[1].data), a parameter (params.action_id, query.limit) or a header (headers.authorization).',
        },
        request_id: { type: 'string' },
        details: {},
      },
    },
  },
};

/** `{path, rule, message}`: one reason of a rejection, one warning of an accepted item, one issue of a 400. */
const reasonSchema = {
  type: 'object',
  required: ['path', 'rule', 'message'],
  properties: { path: { type: 'string' }, rule: { type: 'string' }, message: { type: 'string' } },
};

export const securitySchemes = {
  sdkKey: { type: 'http', scheme: 'bearer', description: "The app's SDK key (public, in the app); the key alone decides the app." },
  sdkKeyQuery: {
    type: 'apiKey',
    in: 'query',
    name: 'sdk_key',
    description:
      'The SDK key as a query parameter, for `navigator.sendBeacon` (which cannot set headers); ingest uploads only, used when there is no Authorization header. An API key here is refused (`api_key_in_url`).',
  },
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description: "The app's API (partner) key, for servers only: server-side imports, actions, the inspector; the key alone decides the app.",
  },
};

const open = { security: [] };

/** The paths every service's app answers itself (createHttpApp), and on the base URL the edge does. */
export const opsPaths: OpenApiPaths = {
  '/healthz': {
    get: {
      operationId: 'getLiveness',
      summary: 'Liveness',
      ...open,
      responses: { '200': jsonResponse('The process is alive.', { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } }) },
    },
  },
  '/readyz': {
    get: {
      operationId: 'getReadiness',
      summary: 'Readiness',
      description:
        'On the base URL of `npm start`: every part (consumers running, broker reachable, action store answering). Behind the docker-compose nginx edge, readiness stays on each service’s own port.',
      ...open,
      responses: { '200': jsonResponse('Ready.', ref('Readiness')), '503': jsonResponse('Not ready; `problems` says why.', ref('Readiness')) },
    },
  },
  '/metrics': {
    get: {
      operationId: 'getMetrics',
      summary: 'Prometheus metrics',
      description: 'On the base URL of `npm start`: every part’s series. Behind the docker-compose nginx edge, metrics stay on each service’s own port.',
      ...open,
      responses: { '200': { description: 'Prometheus text format.', content: { 'text/plain': { schema: { type: 'string' } } } } },
    },
  },
};

/** The edge's own paths on the base URL: the ops paths and this document. */
export function edgeOpenApi(): OpenApiFragment {
  return {
    service: 'edge',
    paths: {
      ...opsPaths,
      '/openapi.json': {
        get: {
          operationId: 'getOpenApiDocument',
          summary: 'This document',
          ...open,
          responses: { '200': { description: 'OpenAPI 3.1 document.', content: json({ type: 'object' }) } },
        },
      },
    },
    schemas: {},
  };
}

/** Schemas every fragment may refer to; every assembled document has them. */
export const commonSchemas: Record<string, object> = {
  Error: errorSchema,
  Reason: reasonSchema,
  Readiness: {
    type: 'object',
    required: ['ready', 'problems'],
    properties: { ready: { type: 'boolean' }, problems: { type: 'array', items: { type: 'string' } } },
  },
};

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: { url: string }[];
  security: Record<string, string[]>[];
  paths: OpenApiPaths;
  components: { securitySchemes: typeof securitySchemes; schemas: Record<string, object> };
}

/**
 * One document from the fragments. A path or a schema name two fragments both define is a mistake
 * (two services cannot answer one route; one name must mean one shape), so it throws. Paths are
 * sorted, so that where a fragment adds a route does not change the document's order.
 */
export function assembleOpenApi(info: OpenApiDocument['info'], fragments: readonly OpenApiFragment[]): OpenApiDocument {
  const paths: OpenApiPaths = {};
  const schemas: Record<string, object> = { ...commonSchemas };
  const owner = new Map<string, string>();
  for (const f of fragments) {
    for (const [path, item] of Object.entries(f.paths)) {
      if (owner.has(path)) throw new Error(`${path} is described by both ${owner.get(path)} and ${f.service}`);
      owner.set(path, f.service);
      paths[path] = item;
    }
    for (const [name, schema] of Object.entries(f.schemas)) {
      if (name in schemas && JSON.stringify(schemas[name]) !== JSON.stringify(schema)) throw new Error(`schema ${name} is defined differently by ${f.service}`);
      schemas[name] = schema;
    }
  }
  const sorted = <T>(o: Record<string, T>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    openapi: '3.1.0',
    info,
    servers: [{ url: '/' }],
    security: [{ sdkKey: [] }],
    paths: sorted(paths),
    components: { securitySchemes, schemas: sorted(schemas) },
  };
}
