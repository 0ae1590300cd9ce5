import { errorCodes, type ErrorCode } from '@evp/core';
import { catalogKindNames } from '@evp/schemas';

/**
 * The OpenAPI 3.1 description of the ingest API, built from the same registries the code uses
 * (error codes, catalog kinds), served at GET /openapi.json and kept in docs/openapi.json
 * (`npx tsx services/gateway/src/write-openapi.ts` rewrites it; a test checks they are equal).
 */
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });

const retryAfter = { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } } };
const requestIdHeader = { 'X-Request-Id': { description: "The request id (the client's own when well-formed).", schema: { type: 'string' } } };

function errorResponse(description: string, codes: ErrorCode[], headers: object = {}) {
  return {
    description: `${description} Codes: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
    headers: { ...requestIdHeader, ...headers },
    content: json({ allOf: [ref('Error')], properties: { error: { properties: { code: { enum: codes } } } } }),
  };
}

const commonIngestErrors = {
  '400': errorResponse(
    'The body is not JSON, not of the expected shape, nested more than 64 levels deep, or unreadable (corrupt gzip); or the request is not well-formed HTTP. `path` points at the offending value.',
    ['invalid_json', 'invalid_envelope', 'invalid_request', 'too_deep', 'malformed_request'],
  ),
  '401': errorResponse('No key, or an unknown key.', ['auth_missing', 'auth_invalid']),
  '403': errorResponse('The key is not an SDK key.', ['forbidden_role']),
  '413': errorResponse('The body exceeds the byte limit after decompression, or holds too many events, envelopes or records.', [
    'payload_too_large',
    'too_many_events',
  ]),
  '415': errorResponse('Unsupported Content-Type (or a charset other than utf-8) or Content-Encoding.', ['unsupported_media_type', 'unsupported_encoding']),
  '417': errorResponse('An Expect header other than 100-continue.', ['expectation_failed']),
  '429': errorResponse('The key exceeded its rate limit.', ['rate_limited'], retryAfter),
  '431': errorResponse('The request headers exceed the size limit.', ['headers_too_large']),
  '500': errorResponse('An unexpected error, logged with the request id.', ['internal']),
  '503': errorResponse('Kafka did not acknowledge the write in time; nothing was stored.', ['unavailable'], retryAfter),
};

const accepted = {
  description: 'Kafka acknowledged the write (acks=all). `accepted` counts events (logs) or records (catalog).',
  headers: requestIdHeader,
  content: json(ref('Accepted')),
};

const requestBody = (schema: object, description: string) => ({
  required: true,
  description: `${description} Also sent as \`text/plain\` holding JSON (navigator.sendBeacon). \`Content-Encoding: gzip\` or \`deflate\` is accepted; limits apply after decompression.`,
  content: { 'application/json': { schema }, 'text/plain': { schema: { type: 'string', description: 'JSON text of the same shape.' } } },
});

const preflight = {
  summary: 'CORS preflight',
  security: [],
  responses: { '204': { description: 'Preflight answered; allow-headers are set for allowed origins only.' } },
};

const ingestLog = (summary: string) => ({
  summary,
  description:
    'One log envelope (current, earlier or flat form) or a non-empty JSON array of envelopes. The gateway checks only that each envelope is an object with a `data` array; events are validated downstream, so a bad event never fails its siblings. Each envelope becomes one raw message keyed `<app>:<user id>`; a flat one, one per user.',
  requestBody: requestBody({ oneOf: [ref('Envelope'), { type: 'array', minItems: 1, items: ref('Envelope') }] }, 'Envelopes.'),
  responses: { '200': accepted, ...commonIngestErrors },
});

/**
 * The server-side import routes (the synthetic data generator): the SDK routes' handlers under
 * /data/ingest, with the app's API key instead of the SDK key and no CORS.
 */
const serverImport = <T extends { description: string; responses: Record<string, unknown> }>(op: T, summary: string, description: string) => ({
  ...op,
  summary,
  description: `${description} ${op.description}`,
  security: [{ apiKey: [] }],
  responses: { ...op.responses, '403': errorResponse('The key is not an API key.', ['forbidden_role']) },
});

export function openApiDocument() {
  const kinds = catalogKindNames();
  const catalogUpload = {
    summary: 'Upload catalog records of one kind',
    description:
      'A non-empty JSON array of records of one catalog kind; the whole request becomes one raw message keyed `<app>:catalog:<kind>`. `user_chw` is an alias of `hcw`.',
    parameters: [{ name: 'kind', in: 'path', required: true, schema: { type: 'string', enum: kinds } }],
    requestBody: requestBody({ type: 'array', minItems: 1, items: { type: 'object' } }, 'Catalog records.'),
    responses: {
      '200': accepted,
      ...commonIngestErrors,
      '404': errorResponse('Unknown catalog kind; `details.kinds` lists the kinds.', ['unknown_catalog_kind']),
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Event ingestion gateway',
      version: '1.0.0',
      description:
        'Ingest API for SDKs. Every 200 is sent only after Kafka acknowledged the data. Limits (defaults): 5 MiB decompressed body, 5,000 events or catalog records per request, per-key rate limit 600,000 requests per 60 s. See docs/api.md and docs/errors.md.',
    },
    servers: [{ url: '/' }],
    security: [{ sdkKey: [] }],
    paths: {
      '/v1/ingest/log': { post: ingestLog('Upload log envelopes'), options: preflight },
      '/v1/ingest/events': { post: ingestLog('Upload log envelopes (alias of /v1/ingest/log)'), options: preflight },
      '/v1/ingest/catalog/{kind}': { post: catalogUpload, options: preflight },
      '/data/ingest/log': {
        post: serverImport(
          ingestLog('Server-side import of logs'),
          'Server-side import of logs',
          'For server-side importers such as the synthetic data generator (docs/api.md), with the app’s API key. Also takes the flat form `{"data": [{u_id, d_id, os, ol, ts, type, block, props, …}, …]}`, split into one raw message per user (`u_id`).',
        ),
      },
      '/data/ingest/catalog/{kind}': {
        post: serverImport(catalogUpload, 'Server-side import of catalog records', 'For server-side importers, with the app’s API key.'),
      },
      '/v1/ingest/dimensions': {
        post: {
          summary: 'Upload catalog records of several kinds (the Kenkai client form)',
          description:
            'An object `{"data": [{"id", "type", "kv": {string: string}}]}` with a non-empty `data` array; records of any kinds (`type`, aliases such as `user_chw` included) may be mixed. The gateway checks only this wrapper; the validator splits the records by kind and reads the `kv` strings by the kind\'s field types. The whole request becomes one raw message (payload kind `dimensions`) keyed `<app>:catalog:dimensions`.',
          requestBody: requestBody(
            {
              type: 'object',
              required: ['data'],
              properties: {
                data: {
                  type: 'array',
                  minItems: 1,
                  items: {
                    type: 'object',
                    properties: { id: { type: 'string' }, type: { type: 'string' }, kv: { type: 'object', additionalProperties: { type: 'string' } } },
                  },
                },
              },
            },
            'Catalog records of several kinds.',
          ),
          responses: { '200': accepted, ...commonIngestErrors },
        },
        options: preflight,
      },
      '/v1/ingest/sdk/crash': {
        post: {
          summary: 'Upload an SDK crash report (causalfoundry/ios-sdk 0.4.3–1.2.3)',
          description:
            'Not in the spec: the exceptions an older iOS client library met, `{u_id, d_info, app_info, sdk, data: [{title, event_type, exception_type, exception_source, stack_trace, ts}]}`. The gateway checks only that the body is an object with a `data` array; each item becomes one `exception` event downstream. The request becomes one raw message keyed `<app>:<u_id>`.',
          requestBody: requestBody(
            { type: 'object', required: ['data'], properties: { data: { type: 'array', items: { type: 'object' } } } },
            'A crash upload.',
          ),
          responses: { '200': accepted, ...commonIngestErrors },
        },
        options: preflight,
      },
      '/healthz': {
        get: {
          summary: 'Liveness',
          security: [],
          responses: { '200': { description: 'The process is alive.', content: json({ type: 'object', properties: { status: { const: 'ok' } } }) } },
        },
      },
      '/readyz': {
        get: {
          summary: 'Readiness: broker reachable, raw topic present, not shutting down',
          security: [],
          responses: {
            '200': { description: 'Ready.', content: json(ref('Readiness')) },
            '503': { description: 'Not ready; `problems` says why.', content: json(ref('Readiness')) },
          },
        },
      },
      '/metrics': {
        get: {
          summary: 'Prometheus metrics',
          security: [],
          responses: { '200': { description: 'Prometheus text format.', content: { 'text/plain': { schema: { type: 'string' } } } } },
        },
      },
      '/openapi.json': {
        get: { summary: 'This document', security: [], responses: { '200': { description: 'OpenAPI 3.1 document.', content: json({ type: 'object' }) } } },
      },
    },
    components: {
      securitySchemes: {
        sdkKey: { type: 'http', scheme: 'bearer', description: "The app's SDK key; the key alone decides the app." },
        apiKey: { type: 'http', scheme: 'bearer', description: "The app's API (partner) key, for server-side imports; the key alone decides the app." },
      },
      schemas: {
        Accepted: {
          type: 'object',
          required: ['accepted', 'request_id'],
          properties: { accepted: { type: 'integer', minimum: 1 }, request_id: { type: 'string' } },
        },
        Envelope: {
          type: 'object',
          description:
            'Current form {id, tz, internal, data}, earlier form {s_id, u_id, d_info, app_info, sdk, up, dn, data}, or the flat form {data} whose logs each carry `u_id`; only `data` is checked here.',
          required: ['data'],
          properties: { id: { type: 'string' }, u_id: { type: 'string' }, data: { type: 'array', items: { type: 'object' } } },
        },
        Readiness: {
          type: 'object',
          required: ['ready', 'problems'],
          properties: { ready: { type: 'boolean' }, problems: { type: 'array', items: { type: 'string' } } },
        },
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: { type: 'string', enum: Object.keys(errorCodes) },
                message: { type: 'string' },
                path: { type: 'string', description: 'JSON path into the body ($, $[1].data) or a header (headers.authorization).' },
                request_id: { type: 'string' },
                details: {},
              },
            },
          },
        },
      },
    },
  };
}
