import {
  corsPreflight,
  errorResponse,
  internalError,
  jsonRequestBody,
  jsonResponse,
  keyed,
  pathParam,
  ref,
  retryAfterHeader,
  type OpenApiFragment,
  type OpenApiOperation,
  withUserToken,
} from '@evp/http';
import { CUSTOM_CATALOG_KIND_PATTERN, catalogKindNames } from '@evp/schemas';
import { SCRIPT_CACHE_CONTROL, SDK_SCRIPT_FILES } from './sdk-script';

/**
 * The gateway's part of the base URL's OpenAPI document (the ingest routes), built from the same
 * registries the code uses (error codes, catalog kinds). dev/src/openapi.ts assembles it with the
 * other services' parts into docs/openapi.json; openapi.test.ts checks it describes every route and
 * status of this app, and no other route.
 */

/** What every upload route may answer besides its success. */
function ingestErrors(role: 'sdk' | 'api') {
  return {
    '400': errorResponse(
      'The body is not JSON, not of the expected shape, nested more than 64 levels deep, or unreadable (corrupt gzip); or the request is not well-formed HTTP. `path` points at the offending value.',
      ['invalid_json', 'invalid_envelope', 'invalid_request', 'too_deep', 'malformed_request'],
    ),
    ...keyed(role).responses,
    '413': errorResponse('The body exceeds the byte limit after decompression, or holds too many events, envelopes or records.', [
      'payload_too_large',
      'too_many_events',
    ]),
    '415': errorResponse('Unsupported Content-Type (or a charset other than utf-8) or Content-Encoding.', ['unsupported_media_type', 'unsupported_encoding']),
    '417': errorResponse('An Expect header other than 100-continue.', ['expectation_failed']),
    '429': errorResponse('The key exceeded its rate limit.', ['rate_limited'], retryAfterHeader),
    '431': errorResponse('The request headers exceed the size limit.', ['headers_too_large']),
    '500': internalError,
    '503': errorResponse('Kafka did not acknowledge the write in time; nothing was stored.', ['unavailable'], retryAfterHeader),
  };
}

const accepted = jsonResponse('Kafka acknowledged the write (acks=all). `accepted` counts events (logs) or records (catalog).', ref('Accepted'));

const preflight = (operationId: string, parameters?: object[]) =>
  corsPreflight(operationId, 'Preflight answered; allow-headers are set for allowed origins only.', parameters);

/** An SDK upload route: SDK key, the upload errors, 200 once Kafka has it. */
const upload = (operationId: string, summary: string, description: string, body: object, extra: Record<string, object> = {}): OpenApiOperation => ({
  operationId,
  summary,
  description,
  security: keyed('sdk').security,
  requestBody: body,
  responses: { '200': accepted, ...ingestErrors('sdk'), ...extra },
});

/** An SDK upload route with the user token (docs/keys.md, "User tokens"). */
const sdkUpload = (...args: Parameters<typeof upload>): OpenApiOperation => withUserToken(upload(...args), 'ingest');

/**
 * An upload route a browser's sendBeacon may post to (log, events, catalog): the SDK key in the
 * Authorization header or as `?sdk_key=` (an API key there is a 403 of its own), the body as
 * application/json or text/plain.
 */
const beaconUpload = (op: OpenApiOperation): OpenApiOperation => ({
  ...withUserToken(op, 'ingest'),
  security: [{ sdkKey: [] }, { sdkKeyQuery: [] }],
  responses: {
    ...op.responses,
    '403': errorResponse('The key is not an SDK key; or an API key came as `sdk_key` in the URL (`api_key_in_url`: a secret in a URL, replace it).', [
      'forbidden_role',
      'api_key_in_url',
    ]),
  },
});

/**
 * The server-side import routes (the synthetic data generator): the SDK routes' handlers under
 * /data/ingest, with the app's API key instead of the SDK key and no CORS.
 */
const serverImport = (op: OpenApiOperation, operationId: string, summary: string, description: string): OpenApiOperation => ({
  ...op,
  operationId,
  summary,
  description: `${description} ${op.description ?? ''}`.trim(),
  security: keyed('api').security,
  responses: { ...op.responses, ...ingestErrors('api') },
});

/** GET /sdk/{file}: the web library's script build (sdk-script.ts). */
const sdkScript: OpenApiOperation = {
  operationId: 'getSdkScript',
  summary: 'The web library’s script build',
  description:
    '`web.js` defines the one global `evp` (docs/sdk-web.md); it loads its parts from the same place when first needed: `web-messages.js`, the in-app message renderer, `web-actions.js`, the action pull, `web-errors.js`, error capture (`captureErrors`), `web-context.js`, device and attribution context (`context`), `web-vitals.js`, LCP/INP/CLS (`webVitals`), and `web-split.js`, the split of a batch the platform answered 413. No key. Any site may load them (`Access-Control-Allow-Origin: *`, `Cross-Origin-Resource-Policy: cross-origin`).',
  security: [],
  parameters: [pathParam('file', { type: 'string', enum: [...SDK_SCRIPT_FILES] }, 'The core or the message renderer.')],
  responses: {
    '200': {
      description: `The script. \`ETag\` is a hash of its content; \`Cache-Control: ${SCRIPT_CACHE_CONTROL}\`.`,
      headers: {
        ETag: { schema: { type: 'string' }, description: 'Strong; send it back as If-None-Match.' },
        'Cache-Control': { schema: { type: 'string' } },
      },
      content: { 'text/javascript': { schema: { type: 'string' } } },
    },
    '304': { description: 'If-None-Match names the current ETag: the copy the browser has is current.' },
    '404': errorResponse('No such file under /sdk/.', ['not_found']),
    '500': internalError,
    '503': errorResponse('This deployment has no script build (the gateway’s WEB_SDK_DIR holds none).', ['not_enabled']),
  },
};

export function gatewayOpenApi(): OpenApiFragment {
  const ingestLog = (operationId: string, summary: string) =>
    upload(
      operationId,
      summary,
      'One log envelope (current, earlier or flat form) or a non-empty JSON array of envelopes. The gateway checks only that each envelope is an object with a `data` array; events are validated downstream, so a bad event never fails its siblings. Each envelope becomes one raw message keyed `<app>:<user id>`; a flat one, one per user. What became of each event: `GET /v1/ingest/requests/{request_id}`.',
      jsonRequestBody({ oneOf: [ref('Envelope'), { type: 'array', minItems: 1, items: ref('Envelope') }] }, 'Envelopes.'),
    );
  const catalogUpload = upload(
    'uploadCatalog',
    'Upload catalog records of one kind',
    'A non-empty JSON array of records of one catalog kind; the whole request becomes one raw message keyed `<app>:catalog:<kind>`. `user_chw` is an alias of `hcw`. A kind that is no built-in one is a kind the app defines itself: its records keep their fields as sent (table `catalog_custom`, docs/data-contract.md).',
    jsonRequestBody({ type: 'array', minItems: 1, items: { type: 'object' } }, 'Catalog records.'),
    {
      '404': errorResponse(
        'The name is no built-in kind and no app-defined kind name; `details.kinds` lists the built-in kinds, `details.app_defined` the pattern.',
        ['unknown_catalog_kind'],
      ),
    },
  );
  // A catalog body carries no sdk string: a client may declare itself (docs/api.md, "Which client uploads a catalog").
  const clientParams = [
    {
      name: 'X-EVP-SDK',
      in: 'header',
      required: false,
      schema: { type: 'string', maxLength: 256 },
      description:
        'The client, as an envelope’s `sdk` (`<os>/<version>`, e.g. `web/1.0.0`): a real client’s catalog quirks are accepted from that client only.',
    },
    {
      name: 'sdk',
      in: 'query',
      required: false,
      schema: { type: 'string', maxLength: 256 },
      description: 'The same declaration, for a client that cannot set headers (a beacon).',
    },
  ];
  const kindParam = pathParam(
    'kind',
    {
      anyOf: [
        { type: 'string', enum: catalogKindNames() },
        { type: 'string', pattern: CUSTOM_CATALOG_KIND_PATTERN.source },
      ],
    },
    'A built-in kind or alias, or a kind the app defines itself (a lower-case name of up to 64 letters, digits and _, starting with a letter).',
  );
  catalogUpload.parameters = [kindParam, ...clientParams];
  return {
    service: 'gateway',
    paths: {
      '/v1/ingest/log': { post: beaconUpload(ingestLog('uploadLog', 'Upload log envelopes')), options: preflight('preflightUploadLog') },
      '/v1/ingest/events': {
        post: beaconUpload(ingestLog('uploadEvents', 'Upload log envelopes (alias of /v1/ingest/log)')),
        options: preflight('preflightUploadEvents'),
      },
      '/v1/ingest/catalog/{kind}': { post: beaconUpload(catalogUpload), options: preflight('preflightUploadCatalog', [kindParam]) },
      '/sdk/{file}': { get: sdkScript },
      '/data/ingest/log': {
        post: serverImport(
          ingestLog('importLog', 'Server-side import of logs'),
          'importLog',
          'Server-side import of logs',
          'For server-side importers such as the synthetic data generator (docs/api.md), with the app’s API key. Also takes the flat form `{"data": [{u_id, d_id, os, ol, ts, type, block, props, …}, …]}`, split into one raw message per user (`u_id`).',
        ),
      },
      '/data/ingest/catalog/{kind}': {
        post: serverImport(catalogUpload, 'importCatalog', 'Server-side import of catalog records', 'For server-side importers, with the app’s API key.'),
      },
      '/v1/ingest/dimensions': {
        post: sdkUpload(
          'uploadDimensions',
          'Upload catalog records of several kinds (the Kenkai client form)',
          'An object `{"data": [{"id", "type", "kv": {string: string}}]}` with a non-empty `data` array; records of any kinds (`type`, aliases such as `user_chw` and app-defined kinds included) may be mixed. The gateway checks only this wrapper; the validator splits the records by kind and reads the `kv` strings by the kind\'s field types. The whole request becomes one raw message (payload kind `dimensions`) keyed `<app>:catalog:dimensions`.',
          jsonRequestBody(
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
        ),
        options: preflight('preflightUploadDimensions'),
      },
      '/v1/ingest/sdk/crash': {
        post: sdkUpload(
          'uploadSdkCrash',
          'Upload an SDK crash report (causalfoundry/ios-sdk 0.4.3–1.2.3)',
          'Not in the spec: the exceptions an older iOS client library met, `{u_id, d_info, app_info, sdk, data: [{title, event_type, exception_type, exception_source, stack_trace, ts}]}`. The gateway checks only that the body is an object with a `data` array; each item becomes one `exception` event downstream. The request becomes one raw message keyed `<app>:<u_id>`.',
          jsonRequestBody({ type: 'object', required: ['data'], properties: { data: { type: 'array', items: { type: 'object' } } } }, 'A crash upload.'),
        ),
        options: preflight('preflightUploadSdkCrash'),
      },
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
    },
  };
}
