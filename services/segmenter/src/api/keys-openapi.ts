import { closedObject, jsonResponse, keyed, nullable, type OpenApiPaths } from '@evp/http';
import { ROLES, USER_TOKEN_ALGS, USER_TOKEN_OUTCOMES, USER_TOKEN_POLICIES } from '@evp/core';

/** GET /v1/keys and the console's Keys page (keys.ts, console/; docs/keys.md#listing-an-apps-keys). */

const time = (description: string) => nullable('string', { format: 'date-time', description });

const page = (operationId: string, summary: string, type: string) => ({
  get: {
    operationId,
    summary,
    security: [],
    responses: {
      '200': { description: `${summary}, served with \`Content-Security-Policy: default-src 'self'\`.`, content: { [type]: { schema: { type: 'string' } } } },
    },
  },
});

export function keyPaths(internalError: object, unavailable: object): OpenApiPaths {
  const key = keyed('api');
  return {
    '/v1/keys': {
      get: {
        operationId: 'listKeys',
        summary: 'The app’s keys, with when each was last used',
        description:
          'Every key of the API key’s own app in the keys file, revoked ones included, by id: never a key or its digest. `last_used_at` is shared by every replica of every service within `KEYS_USAGE_FLUSH_MS` (5 s) when they share Redis.',
        security: key.security,
        responses: {
          '200': jsonResponse(
            'The keys, by id.',
            closedObject(['app_id', 'data'], { app_id: { type: 'string' }, data: { type: 'array', items: { $ref: '#/components/schemas/KeyView' } } }),
          ),
          ...key.responses,
          '500': internalError,
          '503': unavailable,
        },
      },
    },
    '/v1/keys/user-tokens': {
      get: {
        operationId: 'getUserTokens',
        summary: 'The app’s user token policy, signing keys and the last hour’s outcomes',
        description:
          'For the API key’s own app (docs/keys.md#user-tokens): the policy of the keys file, the user token signing keys by kid (alg and dates; never the HS256 secret or the JWK), and how many user-scoped SDK-key calls had each outcome in the current minute and the 59 before it, summed over every replica of the gateway and the action store that share Redis (each adds its counts every `KEYS_USAGE_FLUSH_MS`, 5 s). Under `off` nothing is checked, so nothing is counted.',
        security: key.security,
        responses: {
          '200': jsonResponse('The policy, keys and counts.', { $ref: '#/components/schemas/UserTokensOverview' }),
          ...key.responses,
          '500': internalError,
          '503': unavailable,
        },
      },
    },
    '/console/keys': page('getConsoleKeysPage', 'The console’s Keys page', 'text/html'),
  };
}

export const keySchemas = {
  KeyView: closedObject(['id', 'role', 'created_at', 'revoked_at', 'last_used_at'], {
    id: { type: 'string', description: 'The key’s id in the keys file (its `key_id` in receipts and rejections).' },
    role: { enum: [...ROLES] },
    created_at: time('`created_at` of the keys file, null when not given.'),
    revoked_at: time('From this instant the key is refused (`key_revoked`); null: not revoked. A future instant schedules the revocation.'),
    last_used_at: time('The latest request the key was accepted on (null: none recorded).'),
  }),
  UserTokensOverview: closedObject(['app_id', 'policy', 'keys', 'last_hour'], {
    app_id: { type: 'string' },
    policy: { enum: [...USER_TOKEN_POLICIES], description: '`apps.<app_id>.user_tokens` of the keys file (absent: off).' },
    keys: {
      type: 'array',
      description: 'The app’s `user_token` keys by id.',
      items: closedObject(['id', 'alg', 'created_at', 'revoked_at'], {
        id: { type: 'string', description: 'The kid tokens name in their header.' },
        alg: { enum: [...USER_TOKEN_ALGS] },
        created_at: time('`created_at` of the keys file, null when not given.'),
        revoked_at: time('From this instant tokens of this kid are refused (`user_token_invalid`); null: not revoked.'),
      }),
    },
    last_hour: closedObject(
      [...USER_TOKEN_OUTCOMES],
      Object.fromEntries(USER_TOKEN_OUTCOMES.map((o) => [o, { type: 'integer', minimum: 0 }])),
      'Calls per outcome (as `user_tokens_total` counts them): valid and anonymous pass; required, invalid, expired and mismatch are what enforce refuses.',
    ),
  }),
};
