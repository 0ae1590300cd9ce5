import type { RejectionReason } from '@evp/core';
import { REASON_AVRO_FIELDS } from './record-fields';

/**
 * What became of one event or catalog record of a request: accepted (with its warnings) or rejected
 * (with its reasons). The ingest answer's `accepted` counts what was queued; receipts say what was
 * valid (GET /v1/ingest/requests/{request_id}, docs/api.md).
 */
export const VERDICT_STATUSES = ['accepted', 'rejected'] as const;
export type VerdictStatus = (typeof VERDICT_STATUSES)[number];

export interface ReceiptItem {
  /** Index in the envelope's `data` (or the catalog array); null for a rejection of the whole envelope. */
  event_index: number | null;
  status: VerdictStatus;
  /** The canonical event id, the catalog record id, or the rejection id (a row of `rejected`). */
  id: string;
  /** Canonical event name or catalog kind; null when it could not be read. */
  name: string | null;
  user_id: string | null;
  /** For a rejection: its kind (schema_violation, …). */
  kind: string | null;
  /** Warnings of an accepted item, errors of a rejected one; the first MAX_RECEIPT_REASONS. */
  reasons: RejectionReason[];
  /** How many there were in all (the full list: the event's `warnings`, or the rejected record's `errors`). */
  reasons_total: number;
  /** How many submitted events this item stands for (an envelope rejection stands for all its events). */
  event_count: number;
}

/** One raw message's verdicts (or a part of them, when they are many). */
export interface IngestReceipt {
  /** Derived from request, receipt time, envelope and part: a re-processed message yields the same id. */
  receipt_id: string;
  app_id: string;
  request_id: string;
  key_id: string;
  received_at: number;
  processed_at: number;
  /** `log` or `catalog:<kind>`. */
  payload_kind: string;
  envelope_index: number;
  envelope_count: number;
  part: number;
  parts: number;
  /** Events (or records) the raw message held: accepted + rejected (Σ event_count). Same in every part. */
  events_in: number;
  accepted: number;
  rejected: number;
  items: ReceiptItem[];
}

/** Reasons a receipt item carries at most; the full lists stay on the event and the rejected record. */
export const MAX_RECEIPT_REASONS = 20;

const reason = { type: 'record', name: 'ReceiptReason', fields: REASON_AVRO_FIELDS } as const;

export const ingestReceiptSchema = {
  type: 'record',
  name: 'IngestReceipt',
  namespace: 'evp.ingest',
  doc: 'The verdict of every event or record of one raw message (one envelope of a request)',
  fields: [
    { name: 'receipt_id', type: 'string' },
    { name: 'app_id', type: 'string' },
    { name: 'request_id', type: 'string' },
    { name: 'key_id', type: 'string' },
    { name: 'received_at', type: 'long' },
    { name: 'processed_at', type: 'long' },
    { name: 'payload_kind', type: 'string' },
    { name: 'envelope_index', type: 'int' },
    { name: 'envelope_count', type: 'int' },
    { name: 'part', type: 'int' },
    { name: 'parts', type: 'int' },
    { name: 'events_in', type: 'int' },
    { name: 'accepted', type: 'int' },
    { name: 'rejected', type: 'int' },
    {
      name: 'items',
      type: {
        type: 'array',
        items: {
          type: 'record',
          name: 'ReceiptItem',
          fields: [
            { name: 'event_index', type: ['null', 'int'], default: null },
            { name: 'status', type: 'string', doc: VERDICT_STATUSES.join(', ') },
            { name: 'id', type: 'string' },
            { name: 'name', type: ['null', 'string'], default: null },
            { name: 'user_id', type: ['null', 'string'], default: null },
            { name: 'kind', type: ['null', 'string'], default: null },
            { name: 'reasons', type: { type: 'array', items: reason } },
            { name: 'reasons_total', type: 'int' },
            { name: 'event_count', type: 'int' },
          ],
        },
      },
    },
  ],
} as const;
