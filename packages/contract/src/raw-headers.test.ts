import { fromRawHeaders, rawHeaders, toRawHeaders } from './raw-headers';

describe('raw headers', () => {
  const fields = {
    ctx: { appId: 'app-1', requestId: 'req-1', keyId: 'k-sdk', receivedAt: 1_700_000_000_000 },
    payloadKind: 'catalog:chwsite',
    envelope: { index: 2, count: 3 },
  };

  it('are read back as written', () => {
    const headers = toRawHeaders(fields);
    expect(headers).toEqual({
      app_id: 'app-1',
      request_id: 'req-1',
      received_at: '1700000000000',
      key_id: 'k-sdk',
      payload_kind: 'catalog:chwsite',
      envelope_index: '2',
      envelope_count: '3',
    });
    expect(fromRawHeaders(headers, 5)).toEqual(fields);
  });

  it('default what older gateways and hand-made messages leave out', () => {
    expect(fromRawHeaders({}, 42)).toEqual({
      ctx: { appId: '', requestId: '', keyId: '', receivedAt: 42 },
      payloadKind: 'log',
      envelope: { index: 0, count: 1 },
    });
    expect(fromRawHeaders({ [rawHeaders.receivedAt]: 'soon', [rawHeaders.envelopeIndex]: '7', [rawHeaders.envelopeCount]: '2' }, 42)).toMatchObject({
      ctx: { receivedAt: 42 },
      envelope: { index: 1, count: 2 },
    });
    expect(fromRawHeaders({ [rawHeaders.envelopeIndex]: '-1', [rawHeaders.envelopeCount]: '0' }, 42).envelope).toEqual({ index: 0, count: 1 });
  });
});
