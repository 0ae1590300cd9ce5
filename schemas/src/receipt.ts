import type { IngestReceipt } from '../generated/records';
import { avroFieldsOf, type RecordField } from './record-fields';
import { recordReader } from './record-reader';

export type { IngestReceipt, ReceiptItem } from '../generated/records';

/**
 * What became of one event or catalog record of a request: accepted (with its warnings) or rejected
 * (with its reasons). The ingest answer's `accepted` counts what was queued; receipts say what was
 * valid (GET /v1/ingest/requests/{request_id}, docs/api.md).
 */
export const VERDICT_STATUSES = ['accepted', 'rejected'] as const;
export type VerdictStatus = (typeof VERDICT_STATUSES)[number];

/**
 * A receipt (IngestReceipt, with its ReceiptItem: schemas/generated/records.ts), field by field, in
 * order: its type, its Avro schema (byte for byte the one first registered; test) and its reader
 * (readIngestReceipt, what the sink decodes with) are derived from it.
 */
export const RECEIPT_FIELDS = [
  {
    name: 'receipt_id',
    kind: 'string',
    nonEmpty: true,
    doc: 'Derived from request, receipt time, envelope and part: a re-processed message yields the same id.',
  },
  { name: 'app_id', kind: 'string', nonEmpty: true },
  { name: 'request_id', kind: 'string' },
  { name: 'key_id', kind: 'string' },
  { name: 'received_at', kind: 'epochMs' },
  { name: 'processed_at', kind: 'epochMs' },
  { name: 'payload_kind', kind: 'string', doc: '`log` or `catalog:<kind>`.' },
  { name: 'envelope_index', kind: 'int' },
  { name: 'envelope_count', kind: 'int' },
  { name: 'part', kind: 'int' },
  { name: 'parts', kind: 'int' },
  { name: 'events_in', kind: 'int', doc: 'Events (or records) the raw message held: accepted + rejected (Σ event_count). Same in every part.' },
  { name: 'accepted', kind: 'int' },
  { name: 'rejected', kind: 'int' },
  {
    name: 'items',
    kind: 'recordList',
    avroRecord: 'ReceiptItem',
    doc: 'What became of one event or catalog record of a request: accepted (with its warnings) or rejected (with its reasons).',
    fields: [
      {
        name: 'event_index',
        kind: 'int',
        nullable: true,
        doc: 'Index in the envelope’s `data` (or the catalog array); null for a rejection of the whole envelope.',
      },
      { name: 'status', kind: 'enum', symbols: VERDICT_STATUSES, avroDoc: VERDICT_STATUSES.join(', ') },
      { name: 'id', kind: 'string', doc: 'The canonical event id, the catalog record id, or the rejection id (a row of `rejected`).' },
      { name: 'name', kind: 'string', nullable: true, doc: 'Canonical event name or catalog kind; null when it could not be read.' },
      { name: 'user_id', kind: 'string', nullable: true },
      { name: 'kind', kind: 'string', nullable: true, doc: 'For a rejection: its kind (schema_violation, …).' },
      {
        name: 'reasons',
        kind: 'reasons',
        avroRecord: 'ReceiptReason',
        doc: 'Warnings of an accepted item, errors of a rejected one; the first MAX_RECEIPT_REASONS.',
      },
      {
        name: 'reasons_total',
        kind: 'int',
        doc: 'How many there were in all (the full list: the event’s `warnings`, or the rejected record’s `errors`).',
      },
      { name: 'event_count', kind: 'int', doc: 'How many submitted events this item stands for (an envelope rejection stands for all its events).' },
    ],
  },
] as const satisfies readonly RecordField[];

/** Reasons a receipt item carries at most; the full lists stay on the event and the rejected record. */
export const MAX_RECEIPT_REASONS = 20;

export const ingestReceiptSchema = {
  type: 'record',
  name: 'IngestReceipt',
  namespace: 'evp.ingest',
  doc: 'The verdict of every event or record of one raw message (one envelope of a request)',
  fields: avroFieldsOf(RECEIPT_FIELDS),
} as const;

/** A decoded `ingest.receipts` record → its receipt; throws RecordReadError naming the field that is not one. */
export const readIngestReceipt: (value: unknown) => IngestReceipt = recordReader<IngestReceipt>(RECEIPT_FIELDS);
