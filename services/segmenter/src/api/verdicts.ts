import type { Analytics, RejectionReason } from '@evp/core';
import type { ReceiptItem } from '@evp/schemas';

/** One event's or record's verdict, as GET /v1/ingest/requests/{request_id} lists it. */
type EventVerdict =
  | {
      envelope_index: number;
      event_index: number | null;
      status: 'accepted';
      event_id: string;
      name: string | null;
      user_id: string | null;
      warnings: RejectionReason[];
      warnings_total: number;
    }
  | {
      envelope_index: number;
      event_index: number | null;
      status: 'rejected';
      rejection_id: string;
      kind: string | null;
      name: string | null;
      user_id: string | null;
      reasons: RejectionReason[];
      reasons_total: number;
      /** Submitted events this rejection stands for (an envelope rejection: all its events). */
      event_count: number;
    };

export interface RequestVerdicts {
  request_id: string;
  /** `complete` once every envelope of the request has been validated; `pending` before. */
  status: 'pending' | 'complete';
  received_at: string | null;
  /** `log` or `catalog:<kind>`; null while nothing is validated. */
  payload_kind: string | null;
  envelopes: { count: number | null; validated: number };
  counts: { events: number; accepted: number; rejected: number; with_warnings: number };
  events: EventVerdict[];
}

interface ReceiptRowOut {
  envelope_index: number;
  envelope_count: number;
  part: number;
  parts: number;
  events_in: number;
  accepted: number;
  rejected: number;
  received_ms: number;
  payload_kind: string;
  items: ReceiptItem[];
}

/**
 * What became of every event of one request of the app: its receipts (one per envelope and part,
 * written by the validator), in submission order. Until every envelope's receipts are in, the
 * request is `pending` (a request the validator has not reached yet has no receipt at all, so it
 * reads as pending with no events; ids are not stored before validation).
 */
export async function requestVerdicts(analytics: Analytics, appId: string, requestId: string): Promise<RequestVerdicts> {
  const rows = await analytics.query<ReceiptRowOut>(
    `SELECT envelope_index, envelope_count, part, parts, events_in, accepted, rejected,
            toUnixTimestamp64Milli(received_at) AS received_ms, payload_kind, items
     FROM ingest_receipts FINAL
     WHERE app_id = {app:String} AND request_id = {request:String}
     ORDER BY envelope_index, part`,
    { app: appId, request: requestId },
  );
  const envelopeCount = rows.length > 0 ? Math.max(...rows.map((r) => r.envelope_count)) : null;
  // An envelope counts as validated once all its parts are in.
  const parts = new Map<number, { seen: Set<number>; parts: number; row: ReceiptRowOut }>();
  for (const r of rows) {
    const p = parts.get(r.envelope_index) ?? { seen: new Set<number>(), parts: r.parts, row: r };
    p.seen.add(r.part);
    parts.set(r.envelope_index, p);
  }
  const validated = [...parts.values()].filter((p) => p.seen.size >= p.parts);
  const counts = { events: 0, accepted: 0, rejected: 0, with_warnings: 0 };
  for (const p of validated) {
    counts.events += p.row.events_in;
    counts.accepted += p.row.accepted;
    counts.rejected += p.row.rejected;
  }
  const events: EventVerdict[] = [];
  for (const r of rows) {
    for (const i of r.items) {
      if (i.status === 'accepted') {
        if (i.reasons_total > 0) counts.with_warnings += 1;
        events.push({
          envelope_index: r.envelope_index,
          event_index: i.event_index,
          status: 'accepted',
          event_id: i.id,
          name: i.name,
          user_id: i.user_id,
          warnings: i.reasons,
          warnings_total: i.reasons_total,
        });
      } else {
        events.push({
          envelope_index: r.envelope_index,
          event_index: i.event_index,
          status: 'rejected',
          rejection_id: i.id,
          kind: i.kind,
          name: i.name,
          user_id: i.user_id,
          reasons: i.reasons,
          reasons_total: i.reasons_total,
          event_count: i.event_count,
        });
      }
    }
  }
  const complete = envelopeCount !== null && validated.length >= envelopeCount;
  return {
    request_id: requestId,
    status: complete ? 'complete' : 'pending',
    received_at: rows.length > 0 ? new Date((rows[0] as ReceiptRowOut).received_ms).toISOString() : null,
    payload_kind: rows[0]?.payload_kind ?? null,
    envelopes: { count: envelopeCount, validated: validated.length },
    counts,
    events,
  };
}
