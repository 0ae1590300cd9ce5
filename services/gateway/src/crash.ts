import { envelopeUserId, isObject } from '@evp/contract';
import { ApiError } from '@evp/core';

/**
 * An SDK crash upload (`POST /v1/ingest/sdk/crash`, causalfoundry/ios-sdk 0.4.3–1.2.3): one object
 * `{u_id, d_info, app_info, sdk, data: [crash items]}`. As for logs, the gateway checks only what it
 * needs to route and count; the items are the validator's business (each becomes an exception event).
 */
export function describeCrashUpload(body: unknown, maxItems: number): { userId: string; items: number } {
  if (!isObject(body)) throw new ApiError('invalid_envelope', { message: 'A crash upload must be a JSON object.', path: '$' });
  if (!Array.isArray(body.data)) throw new ApiError('invalid_envelope', { message: 'A crash upload needs a `data` array of crash items.', path: '$.data' });
  if (body.data.length > maxItems) {
    throw new ApiError('too_many_events', {
      message: `The request holds ${body.data.length} crash items; the limit is ${maxItems}.`,
      path: '$',
      details: { events: body.data.length, max_events: maxItems },
    });
  }
  // The partition key keeps one user's items in order; a missing id still routes (the validator rejects it).
  return { userId: envelopeUserId(body), items: body.data.length };
}
