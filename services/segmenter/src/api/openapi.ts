import {
  REQUEST_ID_PATTERN,
  closedObject,
  corsPreflight,
  errorResponse,
  internalError,
  jsonResponse,
  keyed,
  nullable,
  pathParam,
  queryParam,
  ref,
  unavailable,
  type OpenApiFragment,
  type OpenApiOperation,
} from '@evp/http';
import { DEAD_LETTER_PAYLOAD_ENCODINGS, ENVELOPE_FORMS, REJECTION_KINDS } from '@evp/schemas';
import { DEAD_LETTER_ERROR_KINDS } from '@evp/core';
import { campaignPaths, campaignSchemas } from './campaigns-openapi';
import { segmentPaths, segmentSchemas } from './segments-openapi';
import { keyPaths, keySchemas } from './keys-openapi';
import { auditPaths, auditSchemas } from './audit-openapi';
import { privacyPaths, privacySchemas } from './privacy-openapi';
import { consolePaths } from './console-openapi';
import { DEFAULT_INSPECT_LIMIT, MAX_FILTER_CHARS, MAX_INSPECT_LIMIT } from './inspect';

/**
 * The segmenter's part of the base URL's OpenAPI document: request verdicts, the inspector API and
 * page, segments and campaigns (app.ts). The answer shapes are those of verdicts.ts and inspect.ts; openapi.test.ts checks
 * every route of the app is here (and no other), and that the app's answers match what is described.
 * dev/src/openapi.ts assembles it into docs/openapi.json.
 */

const reasons = { type: 'array', items: ref('Reason') };
const object = closedObject;
const time = { type: 'string', format: 'date-time' };

const badRequest = (what: string) => errorResponse(`${what} \`path\` names the parameter.`, ['invalid_request']);
const clickhouseDown = unavailable('ClickHouse');

const filter = (name: string, description: string) =>
  queryParam(name, { type: 'string', minLength: 1, maxLength: MAX_FILTER_CHARS }, `${description} Given once, 1–${MAX_FILTER_CHARS} characters.`);
const inspectParams = [
  filter('user_id', 'Only this user.'),
  filter('request_id', 'Only this request.'),
  filter('name', 'Only this canonical event name (rejections: the name that could be read).'),
  filter('since', 'Only what was received strictly after this time: epoch milliseconds or an RFC 3339 time.'),
  queryParam('limit', { type: 'integer', minimum: 1, maximum: MAX_INSPECT_LIMIT }, `At most this many, newest first. Default ${DEFAULT_INSPECT_LIMIT}.`),
];

const deadLetterParams = [
  filter('source_topic', 'Only dead letters of this source topic (e.g. `actions.requested`).'),
  filter('since', 'Only what failed strictly after this time: epoch milliseconds or an RFC 3339 time.'),
  queryParam('limit', { type: 'integer', minimum: 1, maximum: MAX_INSPECT_LIMIT }, `At most this many, newest first. Default ${DEFAULT_INSPECT_LIMIT}.`),
];

const inspect = (operationId: string, summary: string, item: string, parameters = inspectParams, extra = ''): OpenApiOperation => {
  const key = keyed('api');
  return {
    operationId,
    summary,
    description: `Read from ClickHouse, for the key’s app only.${extra} Details: docs/inspector.md.`,
    security: key.security,
    parameters,
    responses: {
      '200': jsonResponse('Newest first.', object(['data'], { data: { type: 'array', items: ref(item) } })),
      '400': badRequest('A filter is empty, repeated or longer than allowed; `since` is neither epoch ms nor RFC 3339; or `limit` is out of range.'),
      ...key.responses,
      '500': internalError,
      '503': clickhouseDown,
    },
  };
};

/** The inspector page (its script and style are files of the console's build): same-origin content policy, no key (the page asks for the API key). */
const page = (operationId: string, summary: string, type: string): { get: OpenApiOperation } => ({
  get: {
    operationId,
    summary,
    security: [],
    responses: {
      '200': { description: `${summary}, served with \`Content-Security-Policy: default-src 'self'\`.`, content: { [type]: { schema: { type: 'string' } } } },
    },
  },
});

export function segmenterOpenApi(): OpenApiFragment {
  const verdictsKey = keyed('sdk or api');
  const requestIdParam = pathParam(
    'request_id',
    { type: 'string', pattern: REQUEST_ID_PATTERN.source },
    'The `request_id` of the ingest answer (`X-Request-Id`).',
  );
  return {
    service: 'segmenter',
    paths: {
      '/v1/ingest/requests/{request_id}': {
        get: {
          operationId: 'getRequestVerdicts',
          summary: 'What became of every event or record of one request',
          description:
            'From the receipts the validator writes: every event or record of the request, in submission order, `accepted` with its warnings or `rejected` with its reasons. `status` is `pending` until every envelope of the request is validated. Another app’s request, and a request not validated yet, read as `pending` with no events.',
          security: verdictsKey.security,
          parameters: [requestIdParam],
          responses: {
            '200': jsonResponse('The request’s verdicts so far.', ref('RequestVerdicts')),
            '400': badRequest('`request_id` is not 1–128 of `A-Z a-z 0-9 . _ -`.'),
            ...verdictsKey.responses,
            '500': internalError,
            '503': clickhouseDown,
          },
        },
        // A web library's debug mode reads its own verdicts from the page (CORS; CORS_ORIGINS).
        options: corsPreflight(
          'preflightGetRequestVerdicts',
          'Preflight answered; allow-headers (Authorization, X-Request-Id) and GET are set for allowed origins only.',
          [requestIdParam],
        ),
      },
      '/v1/inspect/events': { get: inspect('inspectEvents', 'The app’s events, with their warnings', 'InspectedEvent') },
      '/v1/inspect/rejected': { get: inspect('inspectRejected', 'The app’s rejections, with every reason and the payload as sent', 'InspectedRejection') },
      '/v1/inspect/deadletters': {
        get: inspect(
          'inspectDeadLetters',
          'The app’s dead letters: messages a consumer could not handle, in the one envelope',
          'InspectedDeadLetter',
          deadLetterParams,
          ' A dead letter belongs to the app of its message’s `app_id` header or key; those that name no app are listed by `npm run deadletters -- list` (docs/reliability.md).',
        ),
      },
      '/inspector': page('getInspectorPage', 'The inspector page', 'text/html'),
      ...segmentPaths(),
      ...campaignPaths(),
      ...keyPaths(internalError, unavailable('Redis (keys’ last uses, user token counts)')),
      ...auditPaths(internalError, unavailable('Redis (the access log)')),
      ...consolePaths(),
      ...privacyPaths(),
    },
    schemas: {
      ...keySchemas,
      ...auditSchemas,
      ...privacySchemas,
      ...segmentSchemas,
      ...campaignSchemas,
      RequestVerdicts: object(['request_id', 'status', 'received_at', 'payload_kind', 'envelopes', 'counts', 'events'], {
        request_id: { type: 'string' },
        status: { enum: ['pending', 'complete'], description: '`complete` once every envelope of the request has been validated.' },
        received_at: nullable('string', { format: 'date-time' }),
        payload_kind: nullable('string', { description: '`log`, `dimensions`, `crash` or `catalog:<kind>`; null while nothing is validated.' }),
        envelopes: object(['count', 'validated'], { count: nullable('integer'), validated: { type: 'integer', minimum: 0 } }),
        counts: object(['events', 'accepted', 'rejected', 'with_warnings'], {
          events: { type: 'integer', minimum: 0 },
          accepted: { type: 'integer', minimum: 0 },
          rejected: { type: 'integer', minimum: 0 },
          with_warnings: { type: 'integer', minimum: 0 },
        }),
        events: { type: 'array', items: { oneOf: [ref('AcceptedVerdict'), ref('RejectedVerdict')] } },
      }),
      AcceptedVerdict: object(['envelope_index', 'event_index', 'status', 'event_id', 'name', 'user_id', 'warnings', 'warnings_total'], {
        envelope_index: { type: 'integer', minimum: 0 },
        event_index: nullable('integer'),
        status: { const: 'accepted' },
        event_id: { type: 'string', description: 'The event id, or a catalog record’s id.' },
        name: nullable('string', { description: 'Canonical event name, or the catalog kind.' }),
        user_id: nullable('string'),
        warnings: reasons,
        warnings_total: { type: 'integer', minimum: 0 },
      }),
      RejectedVerdict: object(
        ['envelope_index', 'event_index', 'status', 'rejection_id', 'kind', 'name', 'user_id', 'reasons', 'reasons_total', 'event_count'],
        {
          envelope_index: { type: 'integer', minimum: 0 },
          event_index: nullable('integer'),
          status: { const: 'rejected' },
          rejection_id: { type: 'string' },
          kind: { enum: [...REJECTION_KINDS, null] },
          name: nullable('string'),
          user_id: nullable('string'),
          reasons,
          reasons_total: { type: 'integer', minimum: 0 },
          event_count: { type: 'integer', minimum: 1, description: 'Submitted events this rejection stands for (an envelope rejection: all its events).' },
        },
      ),
      InspectedEvent: object(
        [
          'event_id',
          'user_id',
          'name',
          'sent_name',
          'block',
          'property',
          'time',
          'received_at',
          'request_id',
          'envelope',
          'sdk',
          'app_version',
          'props',
          'meta',
          'warnings',
        ],
        {
          event_id: { type: 'string' },
          user_id: { type: 'string' },
          name: { type: 'string' },
          sent_name: nullable('string'),
          block: { type: 'string' },
          property: nullable('string'),
          time: time,
          received_at: time,
          request_id: { type: 'string' },
          envelope: { enum: [...ENVELOPE_FORMS] },
          sdk: { type: 'string', description: '`<name>/<version>`, empty when unknown.' },
          app_version: { type: 'string' },
          props: { type: 'object' },
          meta: { description: 'Any JSON value, or null.' },
          warnings: reasons,
        },
      ),
      InspectedRejection: object(
        [
          'rejection_id',
          'kind',
          'user_id',
          'name',
          'request_id',
          'received_at',
          'envelope_index',
          'event_index',
          'event_count',
          'payload_kind',
          'reasons',
          'payload',
          'payload_truncated',
        ],
        {
          rejection_id: { type: 'string' },
          kind: { enum: [...REJECTION_KINDS] },
          user_id: nullable('string'),
          name: nullable('string'),
          request_id: { type: 'string' },
          received_at: time,
          envelope_index: nullable('integer'),
          event_index: nullable('integer'),
          event_count: { type: 'integer', minimum: 1 },
          payload_kind: { type: 'string' },
          reasons,
          payload: { type: 'string', description: 'The payload as sent (a prefix when `payload_truncated`).' },
          payload_truncated: { type: 'boolean' },
        },
      ),
      InspectedDeadLetter: object(
        [
          'dead_letter_id',
          'failed_at',
          'source',
          'group',
          'error',
          'processor',
          'replay',
          'headers',
          'payload',
          'payload_encoding',
          'payload_bytes',
          'payload_truncated',
        ],
        {
          dead_letter_id: { type: 'string', description: 'The id `npm run deadletters -- replay --id` takes.' },
          failed_at: time,
          source: object(['topic', 'partition', 'offset', 'key'], {
            topic: { type: 'string' },
            partition: { type: 'integer', minimum: 0 },
            offset: { type: 'string' },
            key: nullable('string'),
          }),
          group: { type: 'string', description: 'The consumer group that could not handle it.' },
          error: object(['kind', 'message', 'retriable'], {
            kind: { enum: [...DEAD_LETTER_ERROR_KINDS] },
            message: { type: 'string' },
            retriable: { type: 'boolean' },
          }),
          processor: object(['name', 'version'], { name: { type: 'string' }, version: { type: 'string' } }),
          replay: {
            oneOf: [object(['of', 'count'], { of: { type: 'string' }, count: { type: 'integer', minimum: 1 } }), { type: 'null' }],
            description: 'Set when the message was itself a replay: the dead letter it was replayed from, and how often.',
          },
          headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'The message’s own headers.' },
          payload: { type: 'string', description: 'The message’s value (a prefix when `payload_truncated`), as `payload_encoding` says.' },
          payload_encoding: { enum: [...DEAD_LETTER_PAYLOAD_ENCODINGS] },
          payload_bytes: { type: 'integer', minimum: 0 },
          payload_truncated: { type: 'boolean' },
        },
      ),
    },
  };
}
