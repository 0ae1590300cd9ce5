import { createHash } from 'node:crypto';
import { payloadPrefix, type IngestContext, type Rejection, type RejectedRecord } from '@evp/schemas';

export const PROCESSOR = 'evp-validator/0.1';

/** Completes a normaliser rejection with provenance; the id is deterministic so replays dedupe. */
export function toRejectedRecord(
  r: Rejection,
  ctx: IngestContext,
  source: { topic: string; partition: number; offset: string },
  payloadKind: string,
  failedAt: number,
): RejectedRecord {
  const text = typeof r.payload === 'string' ? r.payload : (JSON.stringify(r.payload) ?? 'null');
  const sourceRef = `${source.topic}/${source.partition}/${source.offset}`;
  return {
    rejection_id: createHash('sha256')
      .update(`${sourceRef}\u0000${r.envelope_index ?? ''}\u0000${r.event_index ?? ''}`)
      .digest('hex')
      .slice(0, 32),
    kind: r.kind,
    errors: r.errors,
    ...payloadPrefix(text),
    app_id: ctx.appId,
    request_id: ctx.requestId,
    key_id: ctx.keyId,
    received_at: ctx.receivedAt,
    failed_at: failedAt,
    processor: PROCESSOR,
    event_count: r.event_count,
    envelope_index: r.envelope_index,
    event_index: r.event_index,
    event_name: r.event_name,
    payload_kind: payloadKind,
    source: sourceRef,
  };
}
