import { closedObject, jsonRequestBody, jsonResponse, keyed, pathParam, queryParam, ref, type OpenApiOperation, type OpenApiPaths } from '@evp/http';
import { resourceErrors } from './resource-errors-openapi';
import { NAME_MAX, PREVIEW_SAMPLE } from '../segments';
import { MEMBERS_PAGE_DEFAULT, MEMBERS_PAGE_MAX, SEGMENT_BODY_LIMIT } from './segments';
import { hourly, hoursParam } from './console-openapi';

/** The segments API's part of the segmenter's OpenAPI fragment (segments.ts; docs/segments.md#api). */

const time = { type: 'string', format: 'date-time' };
const segmentId = pathParam('segment_id', { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' }, 'The segment’s `id`.');

const errors = resourceErrors({ resource: 'segment', invalidCode: 'invalid_definition', bodyLimitBytes: SEGMENT_BODY_LIMIT });

const op = (summary: string, description: string, rest: Omit<OpenApiOperation, 'summary' | 'security'>): OpenApiOperation => ({
  summary,
  description,
  security: keyed('api').security,
  ...rest,
});

const segmentBody = jsonRequestBody(ref('SegmentInput'), 'A name and a definition.');

export function segmentPaths(): OpenApiPaths {
  return {
    '/v1/segments': {
      post: op('Create a segment', 'Checked against the language and the data contract, saved as version 1; a full recompute starts.', {
        operationId: 'createSegment',
        requestBody: segmentBody,
        responses: {
          '201': jsonResponse('The saved segment.', ref('Segment')),
          ...errors({ body: 'document', badRequest: 'The name or the definition is invalid.' }),
        },
      }),
      get: op(
        'The app’s segments',
        'Every live segment of the key’s app; with `member_counts=true`, each with its current member count (the console’s list).',
        {
          operationId: 'listSegments',
          parameters: [queryParam('member_counts', { enum: ['true', 'false'] }, 'Add `member_count` to each segment. Default false.')],
          responses: {
            '200': jsonResponse('The segments.', closedObject(['data'], { data: { type: 'array', items: ref('Segment') } })),
            ...errors({ badRequest: '`member_counts` is neither true nor false.' }),
          },
        },
      ),
    },
    '/v1/segments/preview': {
      post: op('Preview a definition', 'Evaluates a definition now, over every user of the app, without saving it.', {
        operationId: 'previewSegment',
        requestBody: jsonRequestBody(closedObject(['definition'], { definition: ref('Definition') }), 'A definition.'),
        responses: {
          '200': jsonResponse(
            'How many users it selects now, the first of them and the query.',
            closedObject(['count', 'sample', 'sql'], {
              count: { type: 'integer', minimum: 0 },
              sample: { type: 'array', maxItems: PREVIEW_SAMPLE, items: { type: 'string' }, description: `The first ${PREVIEW_SAMPLE} members by user id.` },
              sql: { type: 'string', description: 'The parameterised ClickHouse query the definition compiles to (its explanation).' },
            }),
          ),
          ...errors({ body: 'document', badRequest: 'The definition is invalid.' }),
        },
      }),
    },
    '/v1/segments/{segment_id}': {
      get: op('One segment', 'The segment’s latest version.', {
        operationId: 'getSegment',
        parameters: [segmentId],
        responses: { '200': jsonResponse('The segment.', ref('Segment')), ...errors({ notFound: true, badRequest: '`segment_id` is malformed.' }) },
      }),
      put: op('Replace a segment’s name and definition', 'Bumps the version; the segment and every segment referencing it are recomputed.', {
        operationId: 'replaceSegment',
        parameters: [segmentId],
        requestBody: segmentBody,
        responses: {
          '200': jsonResponse('The segment, version + 1.', ref('Segment')),
          ...errors({ body: 'document', notFound: true, badRequest: 'The name or the definition is invalid, or `segment_id` is malformed.' }),
        },
      }),
      delete: op('Delete a segment', 'Every member exits (one `exited` record each on segments.membership).', {
        operationId: 'deleteSegment',
        parameters: [segmentId],
        responses: {
          '204': { description: 'Deleted.' },
          ...errors({
            notFound: true,
            conflict:
              'Another segment references this one (`message` names it), or campaigns not ended are triggered by it (entering it, or a schedule over its members): `details.campaign_ids` lists them.',
            badRequest: '`segment_id` is malformed.',
          }),
        },
      }),
    },
    '/v1/segments/{segment_id}/members': {
      get: op('A segment’s current members', 'By user id, a page at a time.', {
        operationId: 'listSegmentMembers',
        parameters: [
          segmentId,
          queryParam('cursor', { type: 'string', maxLength: 1024 }, 'The `cursor` of the previous page.'),
          queryParam('limit', { type: 'integer', minimum: 1, maximum: MEMBERS_PAGE_MAX }, `Members per page. Default ${MEMBERS_PAGE_DEFAULT}.`),
        ],
        responses: {
          '200': jsonResponse(
            'A page of members; `cursor` is present while more remain.',
            closedObject(['data'], {
              data: { type: 'array', items: closedObject(['user_id', 'entered_at'], { user_id: { type: 'string' }, entered_at: time }) },
              cursor: { type: 'string' },
            }),
          ),
          ...errors({ notFound: true, badRequest: '`limit` or `cursor` is invalid, or `segment_id` is malformed.' }),
        },
      }),
    },
    '/v1/segments/{segment_id}/history': {
      get: op(
        'Entries and exits per hour',
        'Changes of membership per hour, from `segment_members`: every change ClickHouse has not merged yet (recent hours exact), and at least each user’s latest change. Hours without a change are left out. Drawn by the console (docs/console.md).',
        {
          operationId: 'getSegmentHistory',
          parameters: [segmentId, hoursParam],
          responses: {
            '200': jsonResponse(
              'Per hour, users who entered and users who exited.',
              hourly({ entered: { type: 'integer', minimum: 0 }, exited: { type: 'integer', minimum: 0 } }),
            ),
            ...errors({ notFound: true, badRequest: '`hours` is out of range, or `segment_id` is malformed.' }),
          },
        },
      ),
    },
    '/v1/users/{user_id}/segments': {
      get: op('A user’s segments', 'The segments of the key’s app the user is a member of now.', {
        operationId: 'listUserSegments',
        parameters: [pathParam('user_id', { type: 'string', minLength: 1, maxLength: 256 })],
        responses: {
          '200': jsonResponse(
            'The user’s segments.',
            closedObject(['data'], {
              data: {
                type: 'array',
                items: closedObject(['segment_id', 'name', 'entered_at'], { segment_id: { type: 'string' }, name: { type: 'string' }, entered_at: time }),
              },
            }),
          ),
          ...errors({ badRequest: '`user_id` is longer than 256 characters.' }),
        },
      }),
    },
  };
}

export const segmentSchemas: Record<string, object> = {
  Definition: {
    type: 'object',
    description:
      'One condition of the segment language (docs/segments.md): `{"all"|"any": [...]}`, `{"not": …}`, an event condition `{"event", "where"?, "count"?, "within"?}`, `{"aggregate": …}`, `{"sequence": […]}`, `{"first_seen"|"last_seen": …}`, `{"profile", "op", "value"}`, `{"responded": …}` or `{"segment": id}`.',
  },
  SegmentInput: closedObject(['name', 'definition'], { name: { type: 'string', minLength: 1, maxLength: NAME_MAX }, definition: ref('Definition') }),
  Segment: closedObject(['id', 'name', 'version', 'definition', 'created_at', 'updated_at'], {
    id: { type: 'string' },
    name: { type: 'string' },
    version: { type: 'integer', minimum: 1 },
    definition: ref('Definition'),
    created_at: time,
    updated_at: time,
    member_count: { type: 'integer', minimum: 0, description: 'Current members; in the list with `member_counts=true` only.' },
  }),
};
