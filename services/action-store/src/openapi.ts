import {
  ACTION_RESPONSES,
  ACTION_TYPES,
  DELIVERY_MODES,
  LIMITS,
  MAX_ACTIONS_PER_CREATE,
  MAX_GIVEN_ID,
  MAX_LAST_ERRORS,
  NEVER_EXPIRES,
  OLDER_SDK_RENDER_METHODS,
  RENDER_METHODS,
  SDK_ALIASES,
  type CreateStatus,
} from '@evp/actions';
import {
  closedObject,
  corsPreflight,
  errorResponse,
  internalError,
  jsonRequestBody,
  jsonResponse,
  keyed,
  pathParam,
  queryParam,
  ref,
  unavailable,
  type KeyRole,
  type OpenApiFragment,
  type OpenApiOperation,
  withUserToken,
} from '@evp/http';

/**
 * The action store's part of the base URL's OpenAPI document (app.ts; docs/actions.md), its limits
 * and value lists read from @evp/actions, where the validation uses them. openapi.test.ts checks
 * every route of the app is here (and no other), and that the app's answers match what is described;
 * dev/src/openapi.ts assembles it into docs/openapi.json.
 */

const object = closedObject;
const str = (maxLength?: number, minLength?: number) => ({
  type: 'string',
  ...(minLength !== undefined ? { minLength } : {}),
  ...(maxLength ? { maxLength } : {}),
});
const int = (minimum = 0, maximum?: number) => ({ type: 'integer', minimum, ...(maximum !== undefined ? { maximum } : {}) });
const givenId = int(0, MAX_GIVEN_ID);
const attr = {
  type: 'object',
  description: `String → string, at most ${LIMITS.attrPairs} pairs; names 1–${LIMITS.attrKeyLength}, values ≤ ${LIMITS.attrValueLength} characters.`,
  additionalProperties: str(LIMITS.attrValueLength),
};
const userId = { ...str(LIMITS.userIdLength, 1), description: `1–${LIMITS.userIdLength} characters.` };
const CREATE_STATUSES: readonly CreateStatus[] = ['created', 'duplicate', 'expired', 'blocked'];

/** The errors of a route by what it reads: a JSON body, and/or a store that may be down. */
function errors(role: KeyRole, opts: { body?: boolean; notFound?: string; badRequest: string }) {
  const key = keyed(role);
  const out: Record<string, object> = {
    '400': errorResponse(
      `${opts.badRequest} \`path\` names the first problem; \`details.issues\` lists up to 100 as {path, rule, message}, \`details.issue_count\` counts them all.`,
      ['invalid_request', ...(opts.body ? (['invalid_json'] as const) : [])],
    ),
    ...key.responses,
  };
  if (opts.body) {
    out['403'] = errorResponse(`The key is not an ${role === 'sdk' ? 'SDK' : 'API'} key, or the body's \`app_id\` names another app than the key's.`, [
      'forbidden_role',
      'forbidden_app',
    ]);
    out['413'] = errorResponse('The body exceeds MAX_BODY_BYTES (16 MiB).', ['payload_too_large']);
    out['415'] = errorResponse('Content-Type other than application/json or text/plain (or a charset other than utf-8), or an unsupported Content-Encoding.', [
      'unsupported_media_type',
      'unsupported_encoding',
    ]);
  }
  if (opts.notFound) out['404'] = errorResponse(opts.notFound, ['not_found']);
  out['500'] = internalError;
  out['503'] = unavailable('Redis');
  return out;
}

/** `app_id` a body may carry: ignored when it names the key's app, 403 forbidden_app otherwise. */
const appIdClaim = { type: 'string', description: "Optional; must name the key's own app (the key alone decides the app)." };

/** A pull body; the SDK pull's value lists add the client-library spellings. */
function pullRequest(sdk: boolean) {
  const values = (spec: readonly string[], aliases: Record<string, string>) => ({ enum: sdk ? [...spec, ...Object.keys(aliases)] : [...spec] });
  return object(['user_id', 'type', 'render_method', 'delivery_mode'], {
    user_id: sdk
      ? { ...userId, description: `One concrete user (not \`*\`), 1–${LIMITS.userIdLength} characters.` }
      : { ...userId, description: '`*` for every user of the app.' },
    type: values(ACTION_TYPES, SDK_ALIASES.type),
    render_method: values(RENDER_METHODS, SDK_ALIASES.render_method),
    delivery_mode: values(DELIVERY_MODES, SDK_ALIASES.delivery_mode),
    attr: { ...attr, description: `Only actions whose attributes contain every pair. ${attr.description}` },
    cursor: { type: 'string', pattern: '^[0-9]+$', maxLength: LIMITS.cursorLength, description: 'The `cursor` of an earlier answer that said `more`.' },
    app_id: appIdClaim,
  });
}

const pullAnswer = jsonResponse(
  'Matching actions, oldest first; `more` says matching actions were left (then `cursor` continues after this page).',
  ref('PullAnswer'),
);

const op = (role: KeyRole, summary: string, description: string, rest: Omit<OpenApiOperation, 'summary' | 'description' | 'security'>): OpenApiOperation => ({
  summary,
  description,
  security: keyed(role).security,
  ...rest,
});

const olderSdkUserId = pathParam('user_id', userId, 'Not `*`.');
const actionIdParam = pathParam('action_id', { type: 'string', pattern: '^[0-9]{1,16}$' }, 'A decimal action id.');

export function actionStoreOpenApi(): OpenApiFragment {
  const newAction = object(['user_id', 'type', 'render_method', 'delivery_mode', 'content', 'expired_at'], {
    user_id: { ...userId, description: `One user (not \`*\`), 1–${LIMITS.userIdLength} characters.` },
    type: { enum: [...ACTION_TYPES] },
    render_method: { enum: [...RENDER_METHODS], description: 'A `custom` action may be an in_app_message or a generic_message only.' },
    delivery_mode: { enum: [...DELIVERY_MODES] },
    content: object(['title', 'body'], { title: str(LIMITS.titleLength), body: str(LIMITS.bodyLength) }),
    attr,
    tags: { type: 'array', maxItems: LIMITS.tags, items: str(LIMITS.tagLength, 1) },
    expired_at: { type: 'string', description: `RFC 3339 with offset; \`${NEVER_EXPIRES}\` means never.` },
    available_at: {
      type: 'string',
      description:
        'RFC 3339 with offset: no pull returns the action before this instant; absent or past = at once. An `expired_at` no later than it makes the action `expired`. Pulls still order by creation (`queued_at`).',
    },
    inv_id: givenId,
    action_id: givenId,
  });
  const actions = { type: 'array', minItems: 1, maxItems: MAX_ACTIONS_PER_CREATE, items: ref('NewAction') };
  const counters = object(['created', 'delivered', 'expired', 'responses'], {
    created: int(),
    delivered: int(),
    expired: int(),
    responses: object([...ACTION_RESPONSES], Object.fromEntries(ACTION_RESPONSES.map((r) => [r, int()]))),
  });

  return {
    service: 'action-store',
    paths: {
      '/v1/actions': {
        post: op('api', 'Create actions', 'For the key’s app; one result per action, in input order (docs/actions.md). Unknown fields are rejected.', {
          operationId: 'createActions',
          requestBody: jsonRequestBody(
            { oneOf: [actions, object(['actions'], { actions, app_id: appIdClaim })] },
            `A JSON array of 1–${MAX_ACTIONS_PER_CREATE} actions, or \`{"actions": [...]}\`.`,
          ),
          responses: {
            '200': jsonResponse('Each action’s outcome.', ref('CreateAnswer')),
            ...errors('api', { body: true, badRequest: 'A field is missing or invalid.' }),
          },
        }),
      },
      '/v1/action/pull': {
        post: op('api', 'Bulk pull (spec 4.1)', 'One-off actions are returned by exactly one pull, ever; cached ones by every pull until `expired_at`.', {
          operationId: 'pullActions',
          requestBody: jsonRequestBody(pullRequest(false), 'The pull.'),
          responses: { '200': pullAnswer, ...errors('api', { body: true, badRequest: 'A field is missing or invalid.' }) },
        }),
      },
      '/v1/action/sdk/pull': {
        post: withUserToken(
          op(
            'sdk',
            'Pull for one user (the client library’s fetch)',
            'As the bulk pull, for one concrete user, accepting the client-library spellings (docs/actions.md). Needs the user’s token where the app enforces user tokens (docs/keys.md).',
            {
              operationId: 'pullUserActions',
              requestBody: jsonRequestBody(pullRequest(true), 'The pull.'),
              responses: { '200': pullAnswer, ...errors('sdk', { body: true, badRequest: 'A field is missing or invalid, or `user_id` is `*`.' }) },
            },
          ),
          'pull',
        ),
        options: corsPreflight('preflightPullUserActions', 'Preflight answered; allow-headers are set for the allowed origins (CORS_ORIGINS) only.'),
      },
      '/v1/actions/{action_id}/stats': {
        get: op('api', 'Counters and latest error reports of one action id', 'For the key’s app only (action ids are per app).', {
          operationId: 'getActionStats',
          parameters: [actionIdParam],
          responses: {
            '200': jsonResponse('The action’s counters.', ref('ActionStats')),
            ...errors('api', { notFound: 'The key’s app never created this action id.', badRequest: '`action_id` is not a decimal id.' }),
          },
        }),
      },
      '/v1/actions/{action_id}/blocks/{user_id}': {
        delete: op('api', 'Lift a user’s block of one action id', 'Idempotent: a second call answers `not_blocked`.', {
          operationId: 'unblockAction',
          parameters: [actionIdParam, pathParam('user_id', userId, 'URL-encoded (`a%2Fb` for `a/b`); not `*`.')],
          responses: {
            '200': jsonResponse('What the call changed.', ref('UnblockAnswer')),
            ...errors('api', { notFound: 'The key’s app never created this action id.', badRequest: '`action_id` or `user_id` is malformed.' }),
          },
        }),
      },
      '/v1/nudge/sdk/{user_id}': {
        get: withUserToken(
          op(
            'sdk',
            'Older iOS clients’ fetch (causalfoundry/ios-sdk 0.4.3–1.2.3)',
            'One user’s push_notification and in_app_message actions as a bare array (never 404), one-off first, at most PULL_MAX, oldest first (docs/actions.md, "Older clients\' fetch").',
            {
              operationId: 'olderSdkPullUserActions',
              parameters: [
                olderSdkUserId,
                queryParam('render_method', { enum: [...OLDER_SDK_RENDER_METHODS, ''] }, 'One render method; absent or empty: both.'),
                queryParam('render_page', str(LIMITS.attrValueLength), 'Only actions created with attr `render_page` = this screen; empty: any.'),
              ],
              responses: {
                '200': jsonResponse('The user’s actions in the shape these clients decode.', { type: 'array', items: ref('OlderSdkNudge') }),
                ...errors('sdk', { badRequest: 'An unknown parameter, another render_method, or the user `*`.' }),
              },
            },
          ),
          'pull',
        ),
        options: corsPreflight('preflightOlderSdkPullUserActions', 'Preflight answered; allow-headers are set for the allowed origins (CORS_ORIGINS) only.', [
          olderSdkUserId,
        ]),
      },
      '/nudge/sdk/get': {
        get: op(
          'api',
          'The synthetic data generator’s fetch',
          'Every action of the user as a bare array; cached actions queued at or before `queued_at` are left out, an available one-off action is always new (docs/actions.md).',
          {
            operationId: 'generatorPullUserActions',
            parameters: [
              queryParam('subject_id', userId, 'The user.', true),
              queryParam('queued_at', { type: 'string' }, 'RFC 3339 with offset (`2025-03-04T10:02:11.504118Z`).'),
            ],
            responses: {
              '200': jsonResponse('The user’s actions in the shape the generator reads.', { type: 'array', items: ref('GeneratorNudge') }),
              ...errors('api', { badRequest: 'An unknown parameter, no `subject_id`, the user `*` or an unreadable `queued_at`.' }),
            },
          },
        ),
      },
    },
    schemas: {
      NewAction: newAction,
      CreateAnswer: object(['data', 'counts'], {
        data: {
          type: 'array',
          items: object(['status', 'user_id', 'inv_id', 'action_id'], {
            status: { enum: [...CREATE_STATUSES] },
            user_id: { type: 'string' },
            inv_id: int(),
            action_id: int(),
          }),
        },
        counts: object([...CREATE_STATUSES], Object.fromEntries(CREATE_STATUSES.map((s) => [s, int()]))),
      }),
      ActionPayload: object(['type', 'render_method', 'delivery_mode', 'content', 'attr', 'tags', 'internal'], {
        type: { enum: [...ACTION_TYPES] },
        render_method: { enum: [...RENDER_METHODS] },
        delivery_mode: { enum: [...DELIVERY_MODES] },
        content: object(['title', 'body'], { title: { type: 'string' }, body: { type: 'string' } }),
        attr: { type: 'object', additionalProperties: { type: 'string' } },
        tags: { type: 'array', items: { type: 'string' } },
        internal: object(['inv_id', 'action_id', 'expired_at', 'ref', 'ref_time'], {
          inv_id: int(),
          action_id: int(),
          expired_at: { type: 'string', description: `As given, without fractional seconds; \`${NEVER_EXPIRES}\` means never.` },
          ref: { type: 'string', description: '`<inv_id>:<action_id>`, what the client sends back as `nudge_response.ref`.' },
          ref_time: { type: 'string', description: '`<queued_at>#<ref>`, the action’s time value.' },
        }),
      }),
      PullEntry: object(['user_id', 'payload', 'error', 'queued_at'], {
        user_id: { type: 'string' },
        payload: ref('ActionPayload'),
        error: {
          oneOf: [{ type: 'null' }, object(['code', 'message'], { code: { type: 'string' }, message: { type: 'string' } })],
          description: 'Always null today.',
        },
        queued_at: { type: 'string', description: 'UTC with six fraction digits.' },
      }),
      PullAnswer: object(['data', 'more'], {
        data: { type: 'array', items: ref('PullEntry') },
        more: { type: 'boolean' },
        cursor: { type: 'string', description: 'Present when `more`: send it back to continue.' },
      }),
      ActionStats: object(['action_id', 'totals', 'by_inv_id', 'last_errors'], {
        action_id: int(),
        totals: counters,
        by_inv_id: { type: 'object', description: 'The same counters per invocation, keyed by inv_id in decimal.', additionalProperties: counters },
        last_errors: {
          type: 'array',
          maxItems: MAX_LAST_ERRORS,
          description: 'The latest `error` report of each user, most recent first.',
          items: object(['user_id', 'inv_id', 'details', 'at'], {
            user_id: { type: 'string' },
            inv_id: int(),
            details: { type: ['string', 'null'] },
            at: { type: 'string' },
          }),
        },
      }),
      UnblockAnswer: object(['action_id', 'user_id', 'status'], {
        action_id: int(),
        user_id: { type: 'string' },
        status: { enum: ['unblocked', 'not_blocked'] },
      }),
      OlderSdkNudge: object(['ref', 'time', 'expire_at', 'nd'], {
        ref: { type: 'string' },
        time: { type: 'string', description: '`queued_at`.' },
        expire_at: { type: 'string', description: `UTC in whole seconds, or \`${NEVER_EXPIRES}\` for never.` },
        nd: object(['type', 'message', 'render_method'], {
          type: { enum: [...ACTION_TYPES] },
          message: object(['title', 'body', 'tags'], {
            title: { type: 'string' },
            body: { type: 'string' },
            tags: { type: 'array', items: { type: 'string' } },
          }),
          render_method: { enum: [...OLDER_SDK_RENDER_METHODS] },
        }),
      }),
      GeneratorNudge: object(['id', 'action', 'queued_at'], {
        id: { type: 'string', description: 'The action’s ref, echoed back as `nudge_response.nudge_id`.' },
        action: ref('ActionPayload'),
        queued_at: { type: 'string' },
      }),
    },
  };
}
