import type { ErrorCode } from '@evp/core';
import { errorResponse, retryAfterHeader, type OpenApiOperation } from '../openapi';
import { USER_TOKEN_PARAM } from './gate';
import { USER_TOKEN_MAX_CHARS } from './verify';

/** An error answer of errorResponse() with more codes and one more sentence. */
function widened(response: object | undefined, sentence: string, more: ErrorCode[], headers: object = {}): object {
  const r = response as
    | { description?: string; content?: { 'application/json'?: { schema?: { properties?: { error?: { properties?: { code?: { enum?: ErrorCode[] } } } } } } } }
    | undefined;
  const codes = r?.content?.['application/json']?.schema?.properties?.error?.properties?.code?.enum ?? [];
  const description = r?.description?.replace(/ Codes: .*$/, '') ?? '';
  return errorResponse(`${description} ${sentence}`.trim(), [...codes, ...more.filter((c) => !codes.includes(c))], headers);
}

const params = [
  {
    name: 'X-EVP-User-Token',
    in: 'header',
    required: false,
    schema: { type: 'string', maxLength: USER_TOKEN_MAX_CHARS },
    description:
      'The user token (a JWT the app’s server signs for its signed-in user; docs/keys.md, "User tokens"). Read only where the app’s policy is report or enforce.',
  },
  {
    name: USER_TOKEN_PARAM,
    in: 'query',
    required: false,
    schema: { type: 'string', maxLength: USER_TOKEN_MAX_CHARS },
    description: 'The user token, for a client that cannot set headers (a beacon); the header wins.',
  },
];

/**
 * An SDK-key operation that takes the user's token (docs/keys.md, "User tokens"): its parameters and
 * the answers enforce adds. A pull (`pull`) also refuses a missing token or another user's, and has
 * its per-user bucket; an upload (`ingest`) answers only a bad or expired token, the rest being the
 * validator's per-event rule.
 */
export function withUserToken(op: OpenApiOperation, on: 'pull' | 'ingest'): OpenApiOperation {
  const tokenCodes: ErrorCode[] =
    on === 'pull' ? ['user_token_required', 'user_token_invalid', 'user_token_expired'] : ['user_token_invalid', 'user_token_expired'];
  const responses: Record<string, object> = {
    ...op.responses,
    '401': widened(op.responses['401'], 'Where the app enforces user tokens: a user token that is missing (pulls), invalid or expired.', tokenCodes),
  };
  if (on === 'pull') {
    responses['403'] = widened(op.responses['403'], 'Where the app enforces user tokens: the token is another user’s.', ['user_token_mismatch']);
    responses['429'] = widened(op.responses['429'], 'The user’s pull bucket is empty (60 at once, then 1 a second).', ['rate_limited'], retryAfterHeader);
  }
  return { ...op, parameters: [...(op.parameters ?? []), ...params], responses };
}
