import { sha256Hex } from '@evp/core';
import { payloadPrefix, type IngestContext, type Rejection, type RejectedRecord } from '@evp/schemas';

const PROCESSOR = 'evp-validator/0.1';

/**
 * A rejection's id, from what was rejected and the request it came in, never from where it sits in
 * the log: offsets restart (the in-process bus on every start, a recreated `ingest.raw`), and an id
 * built from them made a new rejection replace an old one in ClickHouse. A replay of the same raw
 * message (same request, same receipt, same payload) still yields the same id, so replays dedupe.
 * The payload is hashed whole, not the stored prefix: two huge payloads differing late differ.
 */
function rejectionId(r: Rejection, ctx: IngestContext, payloadText: string): string {
  const text = `${ctx.appId}\u0000${r.kind}\u0000${ctx.requestId}\u0000${ctx.receivedAt}\u0000${r.envelope_index ?? ''}\u0000${r.event_index ?? ''}\u0000${payloadText}`;
  return sha256Hex(text).slice(0, 32);
}

/** Completes a normaliser rejection with provenance; the id is content-derived so replays dedupe. */
export function toRejectedRecord(
  r: Rejection,
  ctx: IngestContext,
  source: { topic: string; partition: number; offset: string },
  payloadKind: string,
  failedAt: number,
): RejectedRecord {
  const text = typeof r.payload === 'string' ? r.payload : (JSON.stringify(r.payload) ?? 'null');
  return {
    rejection_id: rejectionId(r, ctx, text),
    kind: r.kind,
    errors: r.reasons,
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
    // Provenance only (where to look in the log), not identity.
    source: `${source.topic}/${source.partition}/${source.offset}`,
    user_id: r.user_id ?? null,
  };
}
