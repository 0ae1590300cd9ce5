/**
 * The one registry of API error codes. Every HTTP error body carries one of these codes; each has
 * exactly one status. docs/errors.md documents every code (a test checks that).
 */
export const errorCodes = {
  auth_missing: { status: 401, message: 'The Authorization header with a Bearer key is missing.' },
  auth_invalid: { status: 401, message: 'The key is not known.' },
  key_revoked: { status: 401, message: 'The key was revoked: use the key that replaced it (the app owner has it).' },
  forbidden_role: { status: 403, message: 'The key is valid but its role may not call this operation.' },
  sql_auth_missing: { status: 401, message: 'The ClickHouse HTTP interface needs a key: basic auth password, X-ClickHouse-Key or ?password=.' },
  sql_auth_invalid: { status: 401, message: 'The key given to the ClickHouse HTTP interface is not known.' },
  sql_forbidden_role: { status: 403, message: 'Only analyst and API keys may query; an SDK key is public and may not.' },
  forbidden_app: { status: 403, message: 'The key belongs to another app than the resource.' },
  api_key_in_url: {
    status: 403,
    message: 'An API key was sent in the URL. API keys are secret: send them only in the Authorization header, and replace this one (URLs end up in logs).',
  },
  user_token_required: {
    status: 401,
    message: 'This app needs a user token for this call: send X-EVP-User-Token (or ?user_token=) signed by the app’s server for the user.',
  },
  user_token_invalid: {
    status: 401,
    message: 'The user token is not valid: malformed, a bad signature, an unknown or revoked kid, another algorithm than the kid’s, or another app (aud).',
  },
  user_token_expired: { status: 401, message: 'The user token has expired (or is not valid yet): get a new one from the app’s server.' },
  user_token_mismatch: { status: 403, message: 'The user token is valid but names another user than the request.' },
  invalid_json: { status: 400, message: 'The body is not valid JSON.' },
  invalid_envelope: { status: 400, message: 'The body is not a log envelope, an array of envelopes, or (catalog) an array of records.' },
  invalid_request: { status: 400, message: 'A field of the request is missing or invalid.' },
  invalid_definition: { status: 400, message: 'The segment definition is not valid; details.issues lists every problem with its path.' },
  invalid_campaign: {
    status: 400,
    message: 'The campaign document (or the campaign settings) is not valid; details.issues lists every problem with its path.',
  },
  too_deep: { status: 400, message: 'The body nests arrays and objects deeper than allowed.' },
  malformed_request: { status: 400, message: 'The request is not well-formed HTTP.' },
  request_timeout: { status: 408, message: 'The request was not received in time.' },
  expectation_failed: { status: 417, message: 'The Expect header is not supported; only 100-continue is.' },
  headers_too_large: { status: 431, message: 'The request headers exceed the size limit.' },
  unsupported_media_type: { status: 415, message: 'Content-Type must be application/json or text/plain, with no charset but utf-8.' },
  unsupported_encoding: { status: 415, message: 'Content-Encoding must be identity, gzip or deflate.' },
  payload_too_large: { status: 413, message: 'The request body exceeds the size limit.' },
  too_many_events: { status: 413, message: 'The request holds more events or records than allowed.' },
  unknown_catalog_kind: { status: 404, message: 'There is no such catalog kind.' },
  not_found: { status: 404, message: 'No such route or resource.' },
  conflict: { status: 409, message: 'The request conflicts with the current state of the resource.' },
  user_suppressed: {
    status: 409,
    message:
      'An action names a user whose data was erased and who is suppressed; nothing was created. Lift the suppression (DELETE /v1/privacy/suppressions/{user_id}) if the user consented again.',
  },
  rate_limited: { status: 429, message: 'Too many requests for this key; retry after the given delay.' },
  not_enabled: { status: 503, message: 'This part of the API does not run in this deployment.' },
  unavailable: { status: 503, message: 'A dependency is unavailable; nothing was stored; retry later.' },
  access_log_unavailable: {
    status: 503,
    message: 'The access log cannot be written, so the read is refused (no log, no read); nothing was read out; retry later.',
  },
  internal: { status: 500, message: 'An unexpected error occurred.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCodes;

export interface ErrorBody {
  error: { code: ErrorCode; message: string; path?: string; request_id?: string; details?: unknown };
}

/** An API error: the code decides the status, the path names the offending value. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly path: string | undefined;
  readonly details: unknown;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, opts: { message?: string; path?: string; details?: unknown; retryAfterSeconds?: number } = {}) {
    super(opts.message ?? errorCodes[code].message);
    this.name = 'ApiError';
    this.code = code;
    this.status = errorCodes[code].status;
    this.path = opts.path;
    this.details = opts.details;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }

  body(requestId?: string): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.path !== undefined ? { path: this.path } : {}),
        ...(this.details !== undefined ? { details: this.details } : {}),
        ...(requestId !== undefined ? { request_id: requestId } : {}),
      },
    };
  }
}
