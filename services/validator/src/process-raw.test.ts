import type { BusMessage } from '@evp/core';
import { rawMessage } from './raw-message.fixture';
import { processRawMessage, processingFailure } from './process-raw';

const options = { maxEventChars: 64 * 1024 };
const msg = rawMessage;

describe('processRawMessage: payload kinds', () => {
  it('reads catalog:<kind> as a catalog submission', () => {
    const o = processRawMessage(msg({ payload_kind: 'catalog:chat_group' }, [{ id: 'g-1', name: 'G' }, { id: 'g-2' }]), options);
    expect(o.events).toEqual([]);
    expect(o.catalog).toEqual([
      {
        record: {
          app_id: 'app-1',
          id: 'g-1',
          kind: 'chat_group',
          received_at: 1_700_000_100_000,
          request_id: 'req-1',
          record: { id: 'g-1', name: 'G' },
          extra: null,
        },
        warnings: [],
        index: 0,
      },
    ]);
    expect(o.rejections.map((r) => [r.kind, r.event_index, r.reasons.map((e) => `${e.path} ${e.rule}`)])).toEqual([
      ['schema_violation', 1, ['$[1].name required']],
    ]);
    expect(o.payloadKind).toBe('catalog:chat_group');
  });

  it('a message without payload_kind is an event upload (gateways older than the header)', () => {
    const o = processRawMessage(msg({}, [{ id: 'g-1', name: 'G' }]), options);
    expect(o.payloadKind).toBe('log');
    expect(o.catalog).toEqual([]);
    expect(o.rejections.map((r) => r.kind)).toEqual(['envelope_violation']);
  });

  it('catalog: with an empty kind is an unknown catalog kind', () => {
    const o = processRawMessage(msg({ payload_kind: 'catalog:' }, []), options);
    expect(o.rejections.map((r) => [r.kind, r.reasons[0]!.rule, r.event_count])).toEqual([['parse_violation', 'unknown_catalog_kind', 1]]);
  });
});

describe('processRawMessage: bounded nesting', () => {
  // The fuzzer's upload: 9 KB whose event nests 4,500 arrays, once overflowing the stack.
  const deep = `${'['.repeat(4500)}${']'.repeat(4500)}`;
  const raw = (body: string): BusMessage => ({ ...msg({}, null), value: Buffer.from(body) });
  const current = (ctx: string) =>
    `{"id":"user-42","tz":"+05:30","internal":{"s_id":"user-42_1700000000000_0","sdk":"android/2.4.1","a_id":"a","a_ver":"1.2.3 (45)","d_id":"d","os":"android"},` +
    `"data":[{"time":"2023-11-15 03:43:20.123","name":"page","property":"Home","ctx":{"__ol":true,"path":"/home","title":"Home","duration":12.5,"render_time":340}},` +
    `{"time":"2023-11-15 03:43:21.123","name":"page","property":"Deep","ctx":${ctx}}]}`;
  const earlier = (props: string) =>
    `{"s_id":"user-7_1700000000000_1700000600000","u_id":"user-7","d_info":{"brand":"Acme","id":"dev-7","model":"A1","os":"android","os_ver":"14"},` +
    `"app_info":{"id":"com.example.app","min_sdk_version":24,"target_sdk_version":34,"version_code":45,"version_name":"1.2.3","version":"1.2.3 (45)"},` +
    `"sdk":"android_2.0.0","up":512,"dn":2048,"data":[{"block":"core","ol":true,"ts":"2023-11-15T03:43:20.123+05:30","type":"page","props":{"path":"/cart","title":"Cart","duration":3,"render_time":20}},` +
    `{"block":"core","ol":true,"ts":"2023-11-15T03:43:21.123+05:30","type":"page","props":${props}}]}`;

  it.each([
    ['current form', current(`{"__ol":true,"path":"/d","title":"D","duration":1,"render_time":2,"x":${deep}}`), '$.data[1].ctx.x'],
    ['earlier form', earlier(`{"path":"/p","x":${deep}}`), '$.data[1].props.x'],
  ])('rejects a %s event nested 4,500 deep (size_violation, max_depth) and accepts its sibling', (_form, body, prefix) => {
    expect(body.length).toBeGreaterThan(9_000);
    const o = processRawMessage(raw(body), options);
    expect(o.events).toHaveLength(1);
    expect(o.rejections).toHaveLength(1);
    const r = o.rejections[0]!;
    expect([r.kind, r.event_index, r.event_count, r.reasons.map((e) => e.rule)]).toEqual(['size_violation', 1, 1, ['max_depth']]);
    // The path names where the limit was crossed: 64 levels below the event (level 1).
    expect(r.reasons[0]!.path).toBe(`${prefix}${'[0]'.repeat(62)}`);
  });

  it('accepts an event exactly at the depth limit', () => {
    // Event (1) → ctx (2) → x (3) → 61 nested arrays (levels 4..64).
    const atLimit = `${'['.repeat(61)}${']'.repeat(61)}`;
    const o = processRawMessage(raw(current(`{"__ol":true,"path":"/d","title":"D","duration":1,"render_time":2,"x":${atLimit}}`)), options);
    expect([o.events.length, o.rejections.length]).toEqual([2, 0]);
  });

  it('turns anything unexpected into a typed rejection of the whole message instead of throwing', () => {
    // Options whose read throws stand for a bug anywhere in normalisation: the message still gets an outcome.
    const broken = {
      get maxEventChars(): number {
        throw new RangeError('Maximum call stack size exceeded');
      },
    };
    const o = processRawMessage(raw(current('{}')), broken);
    expect(o.events).toEqual([]);
    // It stands for both events of the upload, so `events in = accepted + Σ rejected.event_count` holds.
    expect(o.rejections.map((r) => [r.kind, r.event_count, r.reasons])).toEqual([
      [
        'parse_violation',
        2,
        [{ path: '$', rule: 'processing_error', message: 'the validator could not process this message: Maximum call stack size exceeded' }],
      ],
    ]);
    expect(o.rejections[0]!.payload).toBe(current('{}'));
    expect([o.ctx.appId, o.payloadKind]).toEqual(['app-1', 'log']);
  });

  it.each([
    ['two envelopes of 2 events and 0 events', 'log', `[${current('{}')},{"id":"u","data":[]}]`, 3],
    ['a catalog array of 3 records', 'catalog:drug', '[{"id":"a"},{"id":"b"},{"id":"c"}]', 3],
    ['a body that is not JSON', 'log', '{"data":[1,2', 1],
  ])('counts the events a failed message stands for: %s', (_what, payloadKind, body, count) => {
    const o = processingFailure({ ...raw(body), headers: { ...raw(body).headers, payload_kind: payloadKind } }, new Error('boom'));
    expect(o.rejections.map((r) => [r.reasons[0]!.rule, r.event_count])).toEqual([['processing_error', count]]);
  });
});
