import { allTopics } from '@evp/core';
import {
  closedObject,
  errorResponse,
  internalError,
  jsonRequestBody,
  jsonResponse,
  keyed,
  pathParam,
  ref,
  retryAfterHeader,
  unavailable,
  type OpenApiPaths,
} from '@evp/http';
import { ERASURE_MAX_IDS, ERASURE_STATES, EXPORT_STATES } from '../privacy';

/** /v1/privacy (privacy.ts; docs/privacy.md). */

const time = { type: 'string', format: 'date-time' };
const count = { type: 'integer', minimum: 0 };
const ids = (what: string) => ({ type: 'array', items: { type: 'string', minLength: 1, maxLength: 256 }, description: what });
const step = closedObject(['state', 'at'], { state: { type: 'string' }, at: time });
const requestIdParam = pathParam('id', { type: 'string', format: 'uuid' }, 'The id of the 202 answer.');
const accepted = (what: string) =>
  jsonResponse(
    `${what} accepted: carried out by the privacy processor (poll the request).`,
    closedObject(['id', 'state'], { id: { type: 'string', format: 'uuid' }, state: { const: 'accepted' } }),
  );
const notFound = errorResponse('No such request for this app (another app’s request reads as absent).', ['not_found']);
const badBody = (what: string) => errorResponse(`${what} \`path\` names the offending field.`, ['invalid_request', 'invalid_json']);

export function privacyPaths(): OpenApiPaths {
  const key = keyed('api');
  const common = { ...key.responses, '500': internalError, '503': unavailable('ClickHouse') };
  return {
    '/v1/privacy/erasures': {
      post: {
        operationId: 'createErasure',
        summary: 'Erase people’s data everywhere (GDPR art. 17)',
        description: `Suppresses the ids first (nothing of them is taken any more), then deletes every stored row naming them and proves it with counts before and after. At least one id, at most ${ERASURE_MAX_IDS} in all. The request is stored by a keyed hash of the ids, never the ids.`,
        security: key.security,
        requestBody: jsonRequestBody(
          closedObject([], {
            user_ids: ids('The app’s user ids.'),
            patient_ids: ids('Patient ids as the app sends them (`patient_id`, the patient catalog).'),
          }),
          'The ids to erase.',
        ),
        responses: {
          '202': accepted('The erasure'),
          '400': badBody('No id, more than allowed, or an id that is not a string of 1–256 characters.'),
          ...common,
        },
      },
      get: {
        operationId: 'listErasures',
        summary: 'The app’s erasure requests, newest first (at most 100)',
        security: key.security,
        responses: { '200': jsonResponse('The requests.', closedObject(['data'], { data: { type: 'array', items: ref('Erasure') } })), ...common },
      },
    },
    '/v1/privacy/erasures/{id}': {
      get: {
        operationId: 'getErasure',
        summary: 'One erasure request: its state, each store’s counts, when Kafka’s copies expire',
        security: key.security,
        parameters: [requestIdParam],
        responses: { '200': jsonResponse('The request.', ref('Erasure')), '404': notFound, ...common },
      },
    },
    '/v1/privacy/exports': {
      post: {
        operationId: 'createExport',
        summary: 'Gather one person’s data (GDPR art. 15/20)',
        security: key.security,
        requestBody: jsonRequestBody(
          {
            oneOf: [
              closedObject(['user_id'], { user_id: { type: 'string', minLength: 1, maxLength: 256 } }),
              closedObject(['patient_id'], { patient_id: { type: 'string', minLength: 1, maxLength: 256 } }),
            ],
          },
          'One user or one patient.',
        ),
        responses: { '202': accepted('The export'), '400': badBody('Neither exactly `user_id` nor exactly `patient_id`.'), ...common },
      },
      get: {
        operationId: 'listExports',
        summary: 'The app’s exports, newest first (at most 100): state and rows, never the person’s id',
        security: key.security,
        responses: { '200': jsonResponse('The exports.', closedObject(['data'], { data: { type: 'array', items: ref('Export') } })), ...common },
      },
    },
    '/v1/privacy/exports/{id}': {
      get: {
        operationId: 'getExport',
        summary: 'One export: its state and the rows found per store',
        security: key.security,
        parameters: [requestIdParam],
        responses: { '200': jsonResponse('The export.', ref('Export')), '404': notFound, ...common },
      },
    },
    '/v1/privacy/exports/{id}/data': {
      get: {
        operationId: 'getExportData',
        summary: 'The export’s rows as ndjson, streamed',
        description:
          'One line per stored row: `{"store": "clickhouse.<table>", "row": {…}}`, read a page at a time; then, for a user id, one line per action the action store still holds of them: `{"store": "redis.actions", "row": {…}}` (ids, state, times, feedback, the entry while available). Recorded in the access log (route `GET /v1/privacy/exports/{id}/data`, the person as the keyed hash of the export’s id) before the first byte is sent.',
        security: key.security,
        parameters: [requestIdParam],
        responses: {
          '200': { description: 'The rows.', content: { 'application/x-ndjson': { schema: { type: 'string' } } } },
          '404': notFound,
          '409': errorResponse('The export is not completed yet.', ['conflict']),
          ...common,
          '503': errorResponse(
            'ClickHouse did not answer, or the access log could not record the download (`access_log_unavailable`): nothing was sent. Retry after `Retry-After`.',
            ['unavailable', 'access_log_unavailable'],
            retryAfterHeader,
          ),
        },
      },
    },
    '/v1/privacy/suppressions': {
      get: {
        operationId: 'listSuppressions',
        summary: 'The app’s suppressed people, by keyed hash (at most 1,000, newest first)',
        security: key.security,
        responses: { '200': jsonResponse('The suppressions.', closedObject(['data'], { data: { type: 'array', items: ref('Suppression') } })), ...common },
      },
    },
    '/v1/privacy/suppressions/{user_id}': {
      delete: {
        operationId: 'liftSuppression',
        summary: 'Lift a user’s suppression (the person came back and consented again)',
        security: key.security,
        parameters: [pathParam('user_id', { type: 'string', minLength: 1 }, 'The user id (hashed with the key to find its suppression).')],
        responses: {
          '204': { description: 'Lifted: the user’s data is taken again from now on.' },
          '404': errorResponse('The user is not suppressed in this app.', ['not_found']),
          ...common,
        },
      },
    },
  };
}

const storeEntry = closedObject(['store', 'state', 'steps'], {
  store: { type: 'string', description: '`clickhouse.<table>`, or `redis.actions` (the action store).' },
  state: { enum: ['pending', 'deleting', 'verifying', 'completed', 'failed'] },
  steps: { type: 'array', items: step },
  before: { ...count, description: 'Rows (the action store: records) naming the ids before the delete.' },
  after: { ...count, description: 'Rows (records) after, as queries see them.' },
  after_physical: { ...count, description: 'ClickHouse: rows after with the deleted mask ignored (`apply_deleted_mask = 0`): still on disk.' },
  keys_after: { ...count, description: 'The action store: keys still naming the ids after the delete (its per-user index included).' },
  storage: {
    type: 'string',
    description: 'The action store: what was asked of its storage so the deleted data leaves the disk (BGREWRITEAOF), and the answer.',
  },
});

export const privacySchemas = {
  Erasure: closedObject(['id', 'kind', 'state', 'ids', 'created_at', 'updated_at', 'steps', 'stores', 'kafka', 'not_covered'], {
    id: { type: 'string', format: 'uuid' },
    kind: { const: 'erasure' },
    state: { enum: [...ERASURE_STATES] },
    ids: closedObject(['user', 'patient'], { user: count, patient: count }, 'How many ids of each kind (the ids are not kept).'),
    created_at: time,
    updated_at: time,
    steps: { type: 'array', items: step },
    stores: { type: 'array', items: storeEntry },
    kafka: {
      type: 'array',
      description: `One entry per topic (${allTopics().length}): a log is not edited; its last copy is gone once the topic's retention has passed since the suppression.`,
      items: closedObject(['topic', 'retention_ms', 'last_copy_gone_by'], { topic: { type: 'string' }, retention_ms: count, last_copy_gone_by: time }),
    },
    not_covered: { type: 'array', items: { type: 'string' }, description: 'Stores this version does not erase.' },
    failure: closedObject(['stores'], { stores: { type: 'array', items: { type: 'string' } }, message: { type: 'string' } }),
  }),
  Export: closedObject(['id', 'kind', 'state', 'id_kind', 'created_at', 'updated_at'], {
    id: { type: 'string', format: 'uuid' },
    kind: { const: 'export' },
    state: { enum: [...EXPORT_STATES] },
    id_kind: { enum: ['user', 'patient'] },
    created_at: time,
    updated_at: time,
    rows: count,
    stores: { type: 'array', items: closedObject(['store', 'rows'], { store: { type: 'string' }, rows: count }) },
  }),
  Suppression: closedObject(['id_hash', 'kind', 'request_id', 'at'], {
    id_hash: { type: 'string', description: 'HMAC-SHA256 of app, kind and id with the deployment’s key.' },
    kind: { enum: ['user', 'patient'] },
    request_id: { type: 'string' },
    at: time,
  }),
};
