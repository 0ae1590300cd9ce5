import { normalizeUpload } from './normalize';
import { ctx, currentEnvelope, earlierEnvelope, earlierPage, identifyLog, pageLog } from '../__fixtures__/envelopes';

describe('normalizeUpload: current form', () => {
  it('turns a page log into the exact canonical event', () => {
    const r = normalizeUpload(currentEnvelope([pageLog]), ctx);
    expect(r.rejected).toEqual([]);
    expect(r.accepted).toHaveLength(1);
    const e = r.accepted[0]!.event;
    expect(e).toEqual({
      event_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      app_id: 'app-1',
      user_id: 'user-42',
      session_id: 'user-42_1700000000000_0',
      session_start: 1_700_000_000_000,
      session_end: null,
      device_id: 'device-9',
      os: 'android',
      sdk_name: 'android',
      sdk_version: '2.4.1',
      app_version: '1.2.3',
      app_version_code: 45,
      tz: '+05:30',
      block: 'core',
      name: 'page',
      sent_name: null,
      property: 'Home',
      // 2023-11-15 03:43:20.123 at +05:30 is 2023-11-14T22:13:20.123Z.
      time: Date.UTC(2023, 10, 14, 22, 13, 20, 123),
      online: true,
      received_at: 1_700_000_100_000,
      // No sent_at: the time is not corrected.
      sent_at: null,
      corrected_time: Date.UTC(2023, 10, 14, 22, 13, 20, 123),
      request_id: 'req-1',
      pseudonym_key: null,
      envelope: 'current',
      props: { path: '/home', title: 'Home', duration: 12.5, render_time: 340 },
      meta: null,
      client: { declared_app_id: 'com.example.app' },
      warnings: [],
    });
    expect(r.accepted[0]!.warnings).toEqual([]);
  });

  it('accepts the table spellings of internal fields and __ol beside name', () => {
    const env = currentEnvelope([identifyLog], {
      internal: { s_id: 'user-42_1_0', sdk: 'ios_3.0', app_id: 'a', app_version: '2.0.0 (7)', device_id: 'd', device_os: 'ios' },
    });
    const r = normalizeUpload(env, ctx);
    expect(r.rejected).toEqual([]);
    const e = r.accepted[0]!.event;
    expect([e.name, e.online, e.device_id, e.os, e.sdk_name, e.sdk_version, e.app_version_code]).toEqual(['identify', false, 'd', 'ios', 'ios', '3.0', 7]);
    expect(e.props).toEqual({ action: 'login', referral_code: 'REF1' });
  });

  it('keeps internal.context (a web client’s device and attribution context) in client.context for every event, without a warning', () => {
    const context = { user_agent: 'Mozilla/5.0', locale: 'sw-KE', screen: '390x844', utm_source: 'sms' };
    const env = currentEnvelope([pageLog, identifyLog], {
      internal: { s_id: 'user-42_1_0', sdk: 'web/0.1.0', a_id: 'a', a_ver: '2.0.0 (7)', d_id: 'anon:d', os: 'web', context },
    });
    const r = normalizeUpload(env, ctx);
    expect(r.rejected).toEqual([]);
    expect(r.accepted.map((a) => [a.event.client, a.event.warnings])).toEqual([
      [{ declared_app_id: 'a', context }, []],
      [{ declared_app_id: 'a', context }, []],
    ]);
  });

  it('gives a re-sent event the same id, and a different event another', () => {
    const a = normalizeUpload(currentEnvelope([pageLog, identifyLog]), ctx).accepted.map((x) => x.event.event_id);
    const b = normalizeUpload(currentEnvelope([pageLog, identifyLog]), { ...ctx, requestId: 'req-2', receivedAt: 5 }).accepted.map((x) => x.event.event_id);
    expect(b).toEqual(a);
    expect(a[0]).not.toBe(a[1]);
  });

  it('rejects only the bad event of a batch, with every reason and its path', () => {
    const bad = { ...pageLog, ctx: { __ol: true, path: '/x', duration: 'long', render_time: 1.5 } };
    const r = normalizeUpload(currentEnvelope([pageLog, bad, identifyLog]), ctx);
    expect(r.accepted.map((a) => a.event.name)).toEqual(['page', 'identify']);
    expect(r.rejected).toHaveLength(1);
    expect(r.rejected[0]).toMatchObject({ kind: 'schema_violation', event_count: 1, event_index: 1, event_name: 'page' });
    expect(r.rejected[0]!.reasons).toEqual([
      { path: '$.data[1].ctx.title', rule: 'required', message: 'title is required' },
      { path: '$.data[1].ctx.duration', rule: 'type', message: 'expected a number' },
      { path: '$.data[1].ctx.render_time', rule: 'type', message: 'expected a 32-bit integer' },
    ]);
  });

  it('keeps unknown properties as extras and reports them as warnings', () => {
    const log = { ...pageLog, ctx: { ...pageLog.ctx, campaign: 'spring' } };
    const r = normalizeUpload(currentEnvelope([log]), ctx);
    expect(r.accepted[0]!.event.props.__extra).toEqual({ campaign: 'spring' });
    expect(r.accepted[0]!.warnings).toEqual([
      { path: '$.data[0].ctx.campaign', rule: 'unknown_property', message: 'campaign is not part of PageProps; kept as extra' },
    ]);
  });

  it('rejects a whole envelope without internal info as one record counting all its events', () => {
    const env = { id: 'u', tz: 'Z', data: [pageLog, pageLog, pageLog] };
    const r = normalizeUpload(env, ctx);
    expect(r.accepted).toEqual([]);
    expect(r.rejected).toEqual([
      {
        kind: 'envelope_violation',
        reasons: [{ path: '$.internal', rule: 'required', message: 'internal must be an object' }],
        payload: env,
        event_count: 3,
        envelope_index: null,
        event_index: null,
        event_name: null,
        user_id: 'u',
      },
    ]);
  });

  it('normalises an array of envelopes and names each envelope in paths', () => {
    const r = normalizeUpload([currentEnvelope([pageLog]), 'nope'], ctx);
    expect(r.accepted).toHaveLength(1);
    expect(r.rejected[0]).toMatchObject({ kind: 'envelope_violation', envelope_index: 1, reasons: [{ path: '$[1]', rule: 'type' }] });
  });

  it('rejects unknown event names and unparseable times', () => {
    const r = normalizeUpload(
      currentEnvelope([
        { ...pageLog, name: 'teleport' },
        { ...pageLog, time: 'yesterday' },
      ]),
      ctx,
    );
    expect(r.rejected.map((x) => x.reasons[0]!.rule)).toEqual(['unknown_event', 'time_format']);
    expect(r.rejected.map((x) => x.reasons[0]!.path)).toEqual(['$.data[0].name', '$.data[1].time']);
  });

  it('rejects an oversized event as a size violation without failing its siblings', () => {
    const big = { ...pageLog, ctx: { ...pageLog.ctx, title: 'x'.repeat(200) } };
    const r = normalizeUpload(currentEnvelope([pageLog, big]), ctx, { maxEventChars: 200 });
    expect(r.accepted).toHaveLength(1);
    expect(r.rejected[0]).toMatchObject({ kind: 'size_violation', event_index: 1, reasons: [{ rule: 'max_size' }] });
  });

  it('warns when s_id does not belong to the user', () => {
    const env = currentEnvelope([pageLog]);
    env.internal.s_id = 'someone-else_1_0';
    const r = normalizeUpload(env, ctx);
    expect(r.accepted[0]!.warnings.map((w) => w.rule)).toEqual(['session_user_mismatch']);
  });
});

describe('normalizeUpload: earlier form', () => {
  it('turns an earlier-form page into the same canonical shape, keeping client info', () => {
    const r = normalizeUpload(earlierEnvelope([earlierPage]), ctx);
    expect(r.rejected).toEqual([]);
    const e = r.accepted[0]!.event;
    expect(e).toMatchObject({
      user_id: 'user-7',
      session_start: 1_700_000_000_000,
      session_end: 1_700_000_600_000,
      device_id: 'dev-7',
      os: 'android',
      sdk_name: 'android',
      sdk_version: '2.0.0',
      app_version: '1.2.3',
      app_version_code: 45,
      envelope: 'earlier',
      name: 'page',
      time: Date.UTC(2023, 10, 14, 22, 13, 20, 123),
      props: { path: '/cart', title: 'Cart', duration: 3, render_time: 20 },
      meta: { ab: 'b' },
    });
    expect(e.client).toMatchObject({ up: 512, dn: 2048, d_info: { brand: 'Acme', model: 'A1', os_ver: '14' } });
  });

  it('rejects a block that disagrees with the event name (a core event may carry the app block: block.test.ts)', () => {
    const item = {
      block: 'loyalty',
      ol: true,
      ts: '2023-11-15T03:43:20.123+05:30',
      type: 'item_request',
      props: { id: 'r', item_name: 'n', manufacturer: 'm' },
    };
    const r = normalizeUpload(earlierEnvelope([item]), ctx);
    expect(r.rejected[0]!.reasons).toEqual([
      { path: '$.data[0].block', rule: 'block_mismatch', message: 'item_request belongs to block e_commerce, not loyalty' },
    ]);
  });
});
