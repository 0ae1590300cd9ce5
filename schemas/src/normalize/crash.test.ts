import { ctx as fixtureCtx } from '../__fixtures__/envelopes';
import { normalizeCrashUpload } from './crash';

// Received after the items' 2025 times (an earlier receipt would flag them future_time).
const ctx = { ...fixtureCtx, receivedAt: Date.UTC(2026, 0, 1) };

const item = {
  title: 'Invalid CurrencyCode provided',
  event_type: 'cart',
  exception_type: 'IllegalArgumentException',
  exception_source: 'SDK',
  stack_trace: 'The operation couldn’t be completed. (CausalFoundrySDKCore.IllegalArgumentException error 1.)',
  ts: '2025-03-17T12:05:11.482+03:00',
};
const dInfo = { brand: 'Apple', id: 'D-1', model: 'iPhone 14', os: 'iOS', os_ver: '17.4.1' };
const appInfo = { id: 'com.example.pharmacy', min_sdk_version: 15, target_sdk_version: 17, version: '2.4.1 (57)', version_code: 57, version_name: '2.4.1' };
const upload = (data: unknown[], overrides: Record<string, unknown> = {}) => ({
  u_id: 'usr_48213',
  d_info: dInfo,
  app_info: appInfo,
  sdk: 'ios/1.2.3',
  data,
  ...overrides,
});

describe('normalizeCrashUpload (POST /v1/ingest/sdk/crash of causalfoundry/ios-sdk 0.4.3–1.2.3)', () => {
  it('makes one core exception event per item, its ts the event time', () => {
    const r = normalizeCrashUpload(upload([item]), ctx);
    expect(r.rejected).toEqual([]);
    const { event, warnings, event_index } = r.accepted[0]!;
    expect(event_index).toBe(0);
    expect(event).toEqual({
      event_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      app_id: 'app-1',
      user_id: 'usr_48213',
      session_id: '',
      session_start: null,
      session_end: null,
      device_id: 'D-1',
      os: 'iOS',
      sdk_name: 'ios',
      sdk_version: '1.2.3',
      app_version: '2.4.1',
      app_version_code: 57,
      tz: '',
      block: 'core',
      name: 'exception',
      sent_name: null,
      property: null,
      time: Date.UTC(2025, 2, 17, 9, 5, 11, 482),
      online: false,
      received_at: ctx.receivedAt,
      sent_at: null,
      corrected_time: Date.UTC(2025, 2, 17, 9, 5, 11, 482),
      request_id: 'req-1',
      pseudonym_key: null,
      envelope: 'earlier',
      props: item,
      meta: null,
      client: { crash_upload: true, d_info: dInfo, app_info: appInfo },
      warnings,
    });
    expect(warnings).toEqual([
      {
        path: '$.data[0]',
        rule: 'sdk_crash_item',
        message: 'an item of the SDK crash upload, stored as an exception event: ts is its time; no session or connectivity is sent (online false)',
      },
    ]);
    // A re-sent upload yields the same ids.
    expect(normalizeCrashUpload(upload([item]), ctx).accepted[0]!.event.event_id).toBe(event.event_id);
  });

  it('judges each item on its own; items in = accepted + rejected', () => {
    const r = normalizeCrashUpload(upload([item, { ...item, ts: 'yesterday' }, { title: 'x' }, 'boom', { ...item, title: 5 }]), ctx);
    expect(r.accepted.map((a) => a.event_index)).toEqual([0]);
    expect(r.rejected.map((x) => [x.kind, x.event_index, x.event_name, x.reasons.map((e) => `${e.path} ${e.rule}`)])).toEqual([
      ['schema_violation', 1, 'exception', ['$.data[1].ts time_format']],
      ['schema_violation', 2, 'exception', ['$.data[2].ts required']],
      ['schema_violation', 3, 'exception', ['$.data[3] type']],
      ['schema_violation', 4, 'exception', ['$.data[4].title type']],
    ]);
  });

  it('carries the envelope quirks of the older clients (app_info <major>.<build>, rn/ wrapper)', () => {
    const old = { ...appInfo, version: '2.57', version_code: 2, version_name: '57' };
    const a = normalizeCrashUpload(upload([item], { app_info: old, sdk: 'rn/ios/0.5.3' }), ctx).accepted[0]!;
    expect(a.event).toMatchObject({ app_version: '2.57', app_version_code: 57, sdk_name: 'ios', sdk_version: '0.5.3', client: { sdk_wrapper: 'rn' } });
    expect(a.warnings.map((w) => w.rule)).toEqual(['sdk_crash_item', 'sdk_wrapper', 'app_version_major_build']);
  });

  it('rejects an upload that is not a crash envelope as a whole, counting its items', () => {
    expect(normalizeCrashUpload([item], ctx).rejected).toEqual([
      {
        kind: 'envelope_violation',
        reasons: [{ path: '$', rule: 'type', message: 'a crash upload must be an object' }],
        payload: [item],
        event_count: 1,
        envelope_index: null,
        event_index: null,
        event_name: null,
      },
    ]);
    const noUser = normalizeCrashUpload(upload([item, item], { u_id: undefined }), ctx);
    expect(noUser.accepted).toEqual([]);
    expect(noUser.rejected.map((x) => [x.kind, x.event_count, x.reasons.map((e) => `${e.path} ${e.rule}`)])).toEqual([
      ['envelope_violation', 2, ['$.u_id required']],
    ]);
    expect(normalizeCrashUpload(upload([]), ctx)).toEqual({ accepted: [], rejected: [] });
  });

  it('is the older iOS line’s upload: from any other sdk each item is rejected (client_quirk naming sdk_crash_item)', () => {
    const r = normalizeCrashUpload(upload([item], { sdk: 'android/2.0.0' }), ctx);
    expect(r.accepted).toEqual([]);
    expect(r.rejected.map((x) => [x.kind, x.reasons.map((e) => `${e.path} ${e.rule}`)])).toEqual([['schema_violation', ['$.data[0] client_quirk']]]);
    expect(r.rejected[0]!.reasons[0]!.message).toContain('(sdk_crash_item), accepted only from those clients');
  });
});
