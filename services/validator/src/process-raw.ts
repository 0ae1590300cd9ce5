import { rawHeaders, type BusMessage, type RejectionReason } from '@evp/core';
import { normalizeUpload, type CanonicalEvent, type IngestContext, type NormalizeOptions, type Rejection } from '@evp/schemas';

export interface RawOutcome {
  events: CanonicalEvent[];
  rejections: Rejection[];
  warnings: RejectionReason[];
  ctx: IngestContext;
  payloadKind: string;
}

/**
 * One raw message → canonical events and rejections. Pure: no I/O, never throws, so a poison message
 * can never stall the partition; what cannot be read becomes a parse_violation with the raw bytes.
 */
export function processRawMessage(msg: BusMessage, options: NormalizeOptions): RawOutcome {
  const h = msg.headers;
  const ctx: IngestContext = {
    appId: h[rawHeaders.appId] ?? '',
    requestId: h[rawHeaders.requestId] ?? '',
    keyId: h[rawHeaders.keyId] ?? '',
    receivedAt: Number(h[rawHeaders.receivedAt] ?? msg.timestamp) || msg.timestamp,
  };
  const payloadKind = h[rawHeaders.payloadKind] ?? 'log';
  const parseViolation = (errors: RejectionReason[]): RawOutcome => ({
    events: [],
    rejections: [
      { kind: 'parse_violation', errors, payload: msg.value.toString('utf8'), event_count: 1, envelope_index: null, event_index: null, event_name: null },
    ],
    warnings: [],
    ctx,
    payloadKind,
  });
  if (!ctx.appId) return parseViolation([{ path: `headers.${rawHeaders.appId}`, rule: 'required', message: 'raw message has no app id header' }]);
  if (payloadKind !== 'log') {
    return parseViolation([{ path: `headers.${rawHeaders.payloadKind}`, rule: 'unsupported_payload_kind', message: `payload kind ${payloadKind} is not handled by this validator version` }]);
  }
  let body: unknown;
  try {
    body = JSON.parse(msg.value.toString('utf8'));
  } catch (err) {
    return parseViolation([{ path: '$', rule: 'json', message: `not valid JSON: ${(err as Error).message}` }]);
  }
  const result = normalizeUpload(body, ctx, options);
  return {
    events: result.accepted.map((a) => a.event),
    rejections: result.rejected,
    warnings: result.accepted.flatMap((a) => a.warnings),
    ctx,
    payloadKind,
  };
}
