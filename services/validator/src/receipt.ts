import { sha256Hex, type RejectionReason } from '@evp/core';
import { MAX_RECEIPT_REASONS, type IngestContext, type IngestReceipt, type ReceiptItem, type RejectedRecord } from '@evp/schemas';
import type { EventVerdictFacts } from './raw-batch-processor';

export interface ReceiptInput {
  ctx: IngestContext;
  payloadKind: string;
  envelope: { index: number; count: number };
  processedAt: number;
  /** Events written to their block topic. */
  events: readonly EventVerdictFacts[];
  /** Submitted catalog records written to their kind's topic (identify-derived ones are not items). */
  catalog: readonly { index: number; id: string; kind: string; warnings: readonly RejectionReason[] }[];
  rejected: readonly RejectedRecord[];
}

/**
 * Items per receipt part are bounded by this estimate of their encoded size, so a receipt always fits
 * its topic's record batch (1 MiB) however many events and reasons an upload has.
 */
const MAX_RECEIPT_PART_BYTES = 256 * 1024;

const reasonBytes = (r: RejectionReason) => 16 + r.path.length * 3 + r.rule.length + r.message.length * 3;

function item(
  status: ReceiptItem['status'],
  fields: Omit<ReceiptItem, 'status' | 'reasons' | 'reasons_total'>,
  reasons: readonly RejectionReason[],
): ReceiptItem {
  return { status, ...fields, reasons: reasons.slice(0, MAX_RECEIPT_REASONS), reasons_total: reasons.length };
}

const itemBytes = (i: ReceiptItem) =>
  64 + i.id.length + (i.name?.length ?? 0) + (i.user_id?.length ?? 0) * 3 + i.reasons.reduce((n, r) => n + reasonBytes(r), 0);

/**
 * The verdicts of one raw message as receipts: one item per accepted event or record and per
 * rejection, in submission order (a whole-envelope rejection first), cut into parts of bounded size.
 * The id depends only on the request, its receipt time, the envelope and the part, so re-processing
 * the message (a redelivery, a replay) yields the same receipts, which the table collapses.
 */
export function receiptsOf(input: ReceiptInput): IngestReceipt[] {
  const items: ReceiptItem[] = [
    ...input.events.map((e) =>
      item('accepted', { event_index: e.event_index, id: e.event_id, name: e.name, user_id: e.user_id, kind: null, event_count: 1 }, e.warnings),
    ),
    ...input.catalog.map((c) => item('accepted', { event_index: c.index, id: c.id, name: c.kind, user_id: null, kind: null, event_count: 1 }, c.warnings)),
    ...input.rejected.map((r) =>
      item(
        'rejected',
        { event_index: r.event_index, id: r.rejection_id, name: r.event_name, user_id: r.user_id, kind: r.kind, event_count: r.event_count },
        r.errors,
      ),
    ),
  ];
  items.sort((a, b) => (a.event_index ?? -1) - (b.event_index ?? -1));
  const accepted = input.events.length + input.catalog.length;
  const rejected = input.rejected.reduce((n, r) => n + r.event_count, 0);
  const parts: ReceiptItem[][] = [[]];
  let bytes = 0;
  for (const i of items) {
    const b = itemBytes(i);
    const current = parts[parts.length - 1] as ReceiptItem[];
    if (current.length > 0 && bytes + b > MAX_RECEIPT_PART_BYTES) {
      parts.push([i]);
      bytes = b;
    } else {
      current.push(i);
      bytes += b;
    }
  }
  const { ctx } = input;
  return parts.map((partItems, part) => ({
    receipt_id: sha256Hex(`${ctx.appId}\u0000${ctx.requestId}\u0000${ctx.receivedAt}\u0000${input.envelope.index}\u0000${part}`).slice(0, 32),
    app_id: ctx.appId,
    request_id: ctx.requestId,
    key_id: ctx.keyId,
    received_at: ctx.receivedAt,
    processed_at: input.processedAt,
    payload_kind: input.payloadKind,
    envelope_index: input.envelope.index,
    envelope_count: input.envelope.count,
    part,
    parts: parts.length,
    events_in: accepted + rejected,
    accepted,
    rejected,
    items: partItems,
  }));
}
