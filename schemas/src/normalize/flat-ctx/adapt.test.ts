import { ctx as fixtureCtx } from '../../__fixtures__/envelopes';
import { normalizeUpload } from '../normalize';
import { BLOCK_IS_PERMISSION_DETAILS } from './action-response';
import { identifyClient } from '../../clients/identity';

// Received after the 2025 times these clients' logs carry (an earlier receipt would flag them future_time).
const ingestCtx = { ...fixtureCtx, receivedAt: Date.UTC(2026, 0, 1) };

/** An upload as the Kenkai iOS client 1.0.1 builds it (schemas/corpus/clients/ios-kenkai-1.0.1.json). */
function kenkai(name: string, property: string, ctx: Record<string, unknown>, sdk = 'ios/1.0.1') {
  return {
    id: 'user-8842',
    tz: '+05:00',
    internal: { s_id: 'user-8842_1741945800123_1741945800123', sdk, app_id: 'com.example', app_version: '2.3.1 (45)', device_id: 'D-1', device_os: 'iOS' },
    data: [{ time: '2025-03-14T10:15:30Z', name, property, ctx: { ...ctx, __ol: true } }],
  };
}
const one = (body: unknown) => {
  const r = normalizeUpload(body, ingestCtx);
  expect(r.rejected).toEqual([]);
  return r.accepted[0]!.event;
};
const rulesAt = (e: { warnings: { path: string; rule: string }[] }) => e.warnings.map((w) => [w.path, w.rule]);

describe('Kenkai detection', () => {
  it('is by the sdk string ios/1.0.x, with or without the React Native prefix', () => {
    expect(identifyClient('current', 'ios', '1.0.1')).toBe('ios-kenkai');
    expect(identifyClient('current', 'ios', '1.0.10')).toBe('unity-ios');
    // `rn/ios/1.0.1` is read as sdk ios 1.0.1 with the wrapper apart (sdk_wrapper), as for the older line.
    const rn = one(kenkai('page', 'Home', { path: 'app/Home', title: 'Home', render_time: 0, duration: 1 }, 'rn/ios/1.0.1'));
    expect([rn.sdk_name, rn.sdk_version, rn.client?.sdk_wrapper]).toEqual(['ios', '1.0.1', 'rn']);
    expect(rulesAt(rn)).toContainEqual(['$.internal.sdk', 'sdk_wrapper']);
    expect(identifyClient('current', rn.sdk_name, rn.sdk_version)).toBe('ios-kenkai');
    expect(identifyClient('current', 'ios', '1.1.8')).toBeNull();
    expect(identifyClient('current', 'ios', '1.0.2')).toBeNull();
    expect(identifyClient('current', 'android', '1.0.1')).toBeNull();
  });
});

describe('current-form events of the Kenkai client', () => {
  it('page: render_time in seconds becomes ms; the duration it never sends is accepted with a warning', () => {
    const e = one(kenkai('page', 'Home', { path: 'app/Home', title: 'Home', render_time: 2 }));
    expect(e.props).toEqual({ path: 'app/Home', title: 'Home', render_time: 2000 });
    expect(rulesAt(e)).toEqual([
      ['$.data[0].ctx.render_time', 'render_time_seconds'],
      ['$.data[0].ctx.duration', 'required_missing'],
    ]);
  });

  it('the same page from another client is still rejected without duration', () => {
    const r = normalizeUpload(kenkai('page', 'Home', { path: 'app/Home', title: 'Home', render_time: 2 }, 'android/2.0.0'), ingestCtx);
    expect(r.rejected[0]!.reasons.map((e) => [e.path, e.rule])).toEqual([['$.data[0].ctx.duration', 'required']]);
  });

  it('property "" is none (null), for the events that have no property', () => {
    const e = one(kenkai('item_request', '', { id: 'req-12', item_name: 'Insulin', manufacturer: 'Sanofi' }));
    expect(e.property).toBeNull();
    expect(rulesAt(e)).toEqual([['$.data[0].property', 'empty_property']]);
  });

  it('exam: is_passed 1 becomes true, exam_id is the id', () => {
    const e = one(kenkai('exam', 'result', { exam_id: 'x-3', action: 'result', duration: 540, score: 82.5, is_passed: 1 }));
    expect(e.props).toEqual({ id: 'x-3', action: 'result', is_passed: true, score: 82.5, duration: 540 });
  });

  it('delivery: the epoch default of est_delivery_ts means not set (epoch_zero_time, as for the older iOS line)', () => {
    const e = one(
      kenkai('delivery', 'schedule', { id: 'd', order_id: 'o', action: 'schedule', is_urgent: 0, est_delivery_ts: '1970-01-01T05:00:00.000+05:00' }),
    );
    expect(e.props).toEqual({ id: 'd', order_id: 'o', action: 'schedule', is_urgent: false });
    expect(rulesAt(e)).toEqual([
      ['$.data[0].ctx.is_urgent', 'boolean_as_number'],
      ['$.data[0].ctx.est_delivery_ts', 'epoch_zero_time'],
    ]);
  });
});

describe('action_response as Kenkai builds it from a pulled action', () => {
  const internal = { inv_id: 4, action_id: 9, expired_at: '2025-04-01T00:00:00Z', ref: '4:9', ref_time: '2025-03-14T09:00:00.250125Z' };

  it('takes ref and time from the copy of the pulled internal object', () => {
    const e = one(kenkai('action_response', 'open', { response: 'open', ...internal }));
    expect(e.name).toBe('nudge_response');
    expect(e.props).toEqual({
      ref: '4:9',
      time: '2025-03-14T09:00:00.250125Z',
      response: 'open',
      __extra: { inv_id: 4, action_id: 9, expired_at: '2025-04-01T00:00:00Z' },
    });
    expect(rulesAt(e)).toContainEqual(['$.data[0].ctx.time', 'nudge_time_derived']);
  });

  it('derives ref from inv_id and action_id, and time from the log, when the answer had neither', () => {
    const e = one(kenkai('action_response', 'shown', { response: 'shown', inv_id: 62, action_id: 33 }));
    expect([e.props.ref, e.props.time]).toEqual(['62:33', '2025-03-14T10:15:30Z']);
    expect(rulesAt(e).slice(0, 2)).toEqual([
      ['$.data[0].ctx.ref', 'nudge_ref_derived'],
      ['$.data[0].ctx.time', 'nudge_time_derived'],
    ]);
  });

  it('reads block (notifications not authorised) as a delivery error, not an opt-out', () => {
    const e = one(kenkai('action_response', 'block', { response: 'block', ...internal }));
    expect([e.props.response, e.props.details, e.property]).toEqual(['error', BLOCK_IS_PERMISSION_DETAILS, 'block']);
    expect(rulesAt(e)).toContainEqual(['$.data[0].ctx.response', 'block_is_permission']);
  });

  it('keeps block from a client that means it (spec shape, other sdk)', () => {
    const e = one(kenkai('nudge_response', 'block', { ref: '4:9', time: 't', response: 'block' }, 'android/2.0.0'));
    expect(e.props).toEqual({ ref: '4:9', time: 't', response: 'block' });
  });

  it('cannot be tied to an action without ref or ids: rejected', () => {
    const r = normalizeUpload(kenkai('action_response', 'open', { response: 'open' }), ingestCtx);
    expect(r.rejected[0]!.reasons.map((e) => [e.path, e.rule])).toEqual([['$.data[0].ctx.ref', 'required']]);
  });
});

describe('event names the spec lacks', () => {
  it('payment is read as deferred_payment or payment_method by its action', () => {
    const base = { id: 'p', order_id: 'o', type: 'cash', account_balance: 1, payment_amount: 2, currency: 'PKR', is_successful: 1 };
    const processed = one(kenkai('payment', 'payment_processed', { ...base, action: 'payment_processed' }));
    expect([processed.name, processed.sent_name, processed.props.is_successful]).toEqual(['deferred_payment', 'payment', true]);
    const selected = one(kenkai('payment', 'select', { ...base, action: 'select' }));
    expect([selected.name, selected.block]).toEqual(['payment_method', 'payment']);
    expect(rulesAt(selected)).toContainEqual(['$.data[0].ctx', 'payment_event_mapped']);
  });

  it("an app's own track event is a custom event; an unknown name without its track shape is still unknown", () => {
    const e = one(kenkai('level_complete', 'gold', { name: 'level_complete', property: 'gold', stars: 3 }));
    expect([e.name, e.sent_name, e.props]).toEqual(['custom', 'level_complete', { name: 'level_complete', property: 'gold', __extra: { stars: 3 } }]);
    const r = normalizeUpload(kenkai('level_complete', 'gold', { stars: 3 }), ingestCtx);
    expect(r.rejected[0]!.reasons.map((e) => e.rule)).toEqual(['unknown_event']);
  });
});
