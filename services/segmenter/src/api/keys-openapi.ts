import { closedObject, jsonResponse, keyed, nullable, type OpenApiPaths } from '@evp/http';
import { ROLES } from '@evp/core';

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
};
