import { errorResponse, internalError, keyed, retryAfterHeader, unavailable } from '@evp/http';

/** What the error answers of a JSON resource API (segments, campaigns) depend on. */
interface ResourceApi {
  /** `segment`, `campaign`: in the 404's description. */
  resource: string;
  /** The code of an invalid document (a segment's definition, a campaign's document). */
  invalidCode: 'invalid_definition' | 'invalid_campaign';
  bodyLimitBytes: number;
}

/** What one route reads and may answer besides its success. */
interface RouteErrors {
  /** `document`: a body holding the resource's document (invalid → `invalidCode`); `plain`: another body. */
  body?: 'document' | 'plain';
  notFound?: boolean;
  /** The 409's description, when the route can conflict. */
  conflict?: string;
  /** The 400's description: what the route refuses. */
  badRequest: string;
  /** The part behind the route may not run in this deployment (503 `not_enabled`). */
  notEnabled?: boolean;
}

/**
 * The OpenAPI error responses of a resource route (API key; the one error shape), written once for
 * the segments and campaigns APIs: 400 (with the document's issues), 401/403, 404, 409, 413, 415,
 * 500 and 503 as the route needs them.
 */
export function resourceErrors(api: ResourceApi) {
  return (opts: RouteErrors): Record<string, object> => {
    const key = keyed('api');
    const codes = opts.body
      ? (['invalid_request', 'invalid_json', ...(opts.body === 'document' ? [api.invalidCode] : [])] as const)
      : (['invalid_request'] as const);
    const out: Record<string, object> = {
      '400': errorResponse(
        `${opts.badRequest} \`path\` names the first problem; for \`${api.invalidCode}\`, \`details.issues\` lists up to 100 as {path, rule, message} and \`details.issue_count\` counts them.`,
        codes,
      ),
      ...key.responses,
    };
    if (opts.notFound)
      out['404'] = errorResponse(`No ${api.resource} with this id in the key’s app (another app’s ${api.resource} reads the same).`, ['not_found']);
    if (opts.conflict) out['409'] = errorResponse(opts.conflict, ['conflict']);
    if (opts.body) {
      out['413'] = errorResponse(`The body exceeds ${api.bodyLimitBytes / 1024} KiB.`, ['payload_too_large']);
      out['415'] = errorResponse(
        'Content-Type other than application/json or text/plain (or a charset other than utf-8), or an unsupported Content-Encoding.',
        ['unsupported_media_type', 'unsupported_encoding'],
      );
    }
    out['500'] = internalError;
    out['503'] = opts.notEnabled
      ? errorResponse(
          'ClickHouse (or the part behind the route) did not answer: `unavailable`, retry after `Retry-After`; or the part behind the route does not run in this deployment: `not_enabled`.',
          ['unavailable', 'not_enabled'],
          retryAfterHeader,
        )
      : unavailable('ClickHouse');
    return out;
  };
}
