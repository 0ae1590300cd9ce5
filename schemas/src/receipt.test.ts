import { RECEIPT_FIELDS, ingestReceiptSchema, readIngestReceipt } from './receipt';
import { RecordReadError } from './record-reader';

describe('ingest.receipts from RECEIPT_FIELDS', () => {
  it('derives the Avro schema byte for byte as it was first registered (the registry keeps one version)', () => {
    expect(JSON.stringify(ingestReceiptSchema)).toBe(
      `{"type":"record","name":"IngestReceipt","namespace":"evp.ingest","doc":"The verdict of every event or record of one raw message (one envelope of a request)","fields":[{"name":"receipt_id","type":"string"},{"name":"app_id","type":"string"},{"name":"request_id","type":"string"},{"name":"key_id","type":"string"},{"name":"received_at","type":"long"},{"name":"processed_at","type":"long"},{"name":"payload_kind","type":"string"},{"name":"envelope_index","type":"int"},{"name":"envelope_count","type":"int"},{"name":"part","type":"int"},{"name":"parts","type":"int"},{"name":"events_in","type":"int"},{"name":"accepted","type":"int"},{"name":"rejected","type":"int"},{"name":"items","type":{"type":"array","items":{"type":"record","name":"ReceiptItem","fields":[{"name":"event_index","type":["null","int"],"default":null},{"name":"status","type":"string","doc":"accepted, rejected"},{"name":"id","type":"string"},{"name":"name","type":["null","string"],"default":null},{"name":"user_id","type":["null","string"],"default":null},{"name":"kind","type":["null","string"],"default":null},{"name":"reasons","type":{"type":"array","items":{"type":"record","name":"ReceiptReason","fields":[{"name":"path","type":"string"},{"name":"rule","type":"string"},{"name":"message","type":"string"}]}}},{"name":"reasons_total","type":"int"},{"name":"event_count","type":"int"}]}}}]}`,
    );
  });

  it('reads a decoded receipt into exactly its fields, items and reasons included, and names a bad nested field', () => {
    const item = {
      event_index: 0,
      status: 'accepted',
      id: 'e1',
      name: 'page',
      user_id: 'u',
      kind: null,
      reasons: [{ path: '$', rule: 'r', message: 'm' }],
      reasons_total: 1,
      event_count: 1,
    };
    const receipt = {
      receipt_id: 'r1',
      app_id: 'a',
      request_id: 'q',
      key_id: 'k',
      received_at: 1,
      processed_at: 2,
      payload_kind: 'log',
      envelope_index: 0,
      envelope_count: 1,
      part: 0,
      parts: 1,
      events_in: 1,
      accepted: 1,
      rejected: 0,
      items: [item],
    };
    expect(readIngestReceipt(receipt)).toEqual(receipt);
    expect(Object.keys(readIngestReceipt(receipt))).toEqual(RECEIPT_FIELDS.map((f) => f.name));
    const problem = (v: unknown) => {
      try {
        readIngestReceipt(v);
      } catch (err) {
        return err instanceof RecordReadError ? err.message : String(err);
      }
      return 'read';
    };
    expect([
      problem({ ...receipt, items: [item, { ...item, status: 'maybe' }] }),
      problem({ ...receipt, items: [{ ...item, reasons: [{ path: '$' }] }] }),
    ]).toEqual(['items[1].status: maybe is not one of accepted, rejected', 'items[0].reasons[0]: expected {path, rule, message}']);
  });
});
