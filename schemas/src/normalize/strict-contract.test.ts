import { ctx as fixtureCtx, currentEnvelope, earlierEnvelope, pageLog } from '../__fixtures__/envelopes';
import { FUTURE_TIME_TOLERANCE_MS } from './future-time';
import { normalizeUpload } from './normalize';

/**
 * Issue 24, part 1: strict where the spec is strict, lenient only for the client that needs it.
 * Uploads as a new integration writes them from the spec (`web/1.0.0`, `android/2.0.0`), against the
 * same uploads from the real clients whose quirks they are.
 */
const ctx = { ...fixtureCtx, receivedAt: Date.UTC(2025, 5, 1, 12) };
const web = (data: unknown[], internal: Record<string, unknown> = {}) => {
  const env = currentEnvelope(data);
  return { ...env, internal: { ...env.internal, sdk: 'web/1.0.0', os: 'web', ...internal }, sent_at: '2025-06-01T12:00:00.000Z' };
};
const kenkai = (data: unknown[]) => web(data, { sdk: 'ios/1.0.1', os: 'iOS' });
const earlier = (sdk: string, data: unknown[]) => ({ ...earlierEnvelope(data), sdk });
const flat = (logs: unknown[]) => ({ data: logs });
const log = (name: string, property: unknown, ctx: Record<string, unknown>) => ({ time: '2025-06-01 10:00:00.000', __ol: true, name, property, ctx });
const reasons = (body: unknown) => {
  const r = normalizeUpload(body, ctx);
  expect(r.accepted).toEqual([]);
  return r.rejected.flatMap((x) => x.reasons.map((e) => [e.path, e.rule]));
};
const warnings = (body: unknown) => {
  const r = normalizeUpload(body, ctx);
  expect(r.rejected).toEqual([]);
  return r.accepted.flatMap((a) => a.warnings.map((w) => [w.path, w.rule]));
};

describe('a spec client (web/1.0.0, sent_at at the top) is held to the spec', () => {
  it('accepts a spec-shaped event with no warning', () => {
    expect(warnings(web([pageLog]))).toEqual([]);
  });

  it('requires property: absent and null are `required`, "" is `non_empty` (the Kenkai clients’ quirk)', () => {
    const page = { path: '/', title: 'Home', duration: 1, render_time: 2, __ol: true };
    const { property: _p, ...noProperty } = log('page', 'Home', page);
    expect(reasons(web([noProperty]))).toEqual([['$.data[0].property', 'required']]);
    expect(reasons(web([log('page', null, page)]))).toEqual([['$.data[0].property', 'required']]);
    expect(reasons(web([log('level', '', { __ol: true, new_level: 2, prev_level: 1, module_id: 'm' })]))).toEqual([['$.data[0].property', 'non_empty']]);
    // From the Kenkai client, "" is its way of sending no property: accepted, stored as null.
    const k = normalizeUpload(kenkai([log('level', '', { __ol: true, new_level: 2, prev_level: 1, module_id: 'm' })]), ctx);
    expect(k.accepted.map((a) => [a.event.property, a.warnings.map((w) => w.rule)])).toEqual([[null, ['empty_property']]]);
  });

  it('requires ctx (spec 2.1: R)', () => {
    expect(reasons(web([{ time: '2025-06-01 10:00:00.000', __ol: true, name: 'page', property: 'Home' }]))).toEqual([['$.data[0].ctx', 'required']]);
  });

  it('rejects a delivery without id or is_urgent naming both (the defaults are the older iOS line’s and the generator’s)', () => {
    const delivery = { order_id: 'o-1', action: 'delivered', __ol: true };
    expect(reasons(web([log('delivery', 'delivered', delivery)]))).toEqual([
      ['$.data[0].ctx.id', 'required'],
      ['$.data[0].ctx.is_urgent', 'required'],
    ]);
    // From android in the earlier form too: the form alone names no client.
    const props = { order_id: 'o-1', action: 'delivered' };
    const android = { block: 'e_commerce', ol: true, ts: '2025-06-01T10:00:00.000Z', type: 'delivery', props };
    expect(reasons(earlier('android_2.0.0', [android]))).toEqual([
      ['$.data[0].props.id', 'required'],
      ['$.data[0].props.is_urgent', 'required'],
    ]);
    // causalfoundry/ios-sdk 0.5.3's delivered step never writes is_urgent: not urgent, with the warning.
    const cf = normalizeUpload(earlier('ios/0.5.3', [{ ...android, props: { ...props, id: 'd-1' } }]), ctx);
    expect(cf.accepted.map((a) => [a.event.props.is_urgent, a.warnings.map((w) => w.rule)])).toEqual([[false, ['default_applied']]]);
    // The generator's schedule_delivery (flat form): the id is the order id, not urgent.
    const gen = { u_id: 'u', d_id: 'd', os: 'linux', ol: true, ts: '2025-06-01T10:00:00.000000Z', type: 'delivery', block: 'e_commerce', props };
    const g = normalizeUpload(flat([gen]), ctx);
    expect(g.rejected).toEqual([]);
    expect(g.accepted[0]!.event.props).toMatchObject({ id: 'o-1', is_urgent: false });
  });

  it('holds question and exam to their R fields in any earlier-form envelope but the older iOS line’s', () => {
    const question = { block: 'e_learning', ol: true, ts: '2025-06-01T10:00:00.000Z', type: 'question', props: { id: 'q-1', exam_id: 'e-1', action: 'skip' } };
    expect(reasons(earlier('android_2.0.0', [question]))).toEqual([['$.data[0].props.answer_id', 'required']]);
    expect(warnings(earlier('ios/1.2.3', [question]))).toEqual([['$.data[0].props.answer_id', 'required_missing']]);
    // An ios sdk outside the line's versions is no known client either.
    expect(reasons(earlier('ios/3.0.0', [question]))).toEqual([['$.data[0].props.answer_id', 'required']]);
  });

  it('rejects a Kenkai-flattened ctx from another client, naming the quirk and its clients', () => {
    const item = { __ol: true, action: 'view', id: 'sku-1', type: 'drug', quantity: 1, price: 2.5, currency: 'USD' };
    const r = normalizeUpload(web([log('item', 'view', item)]), ctx);
    expect(r.accepted).toEqual([]);
    const e = r.rejected[0]!.reasons.find((x) => x.rule === 'client_quirk')!;
    expect(e.path).toBe('$.data[0].ctx.item');
    expect(e.message).toContain('(flattened_object), accepted only from those clients');
    expect(e.message).toContain('causalfoundry/ios-sdk Kenkai 1.0.0–1.0.1');
    // The same ctx from the Kenkai client is its object, rebuilt.
    expect(warnings(kenkai([log('item', 'view', item)]))).toContainEqual(['$.data[0].ctx.item', 'flattened_object']);
  });

  it('keeps the readings the spec allows for every client: sub-millisecond digits (time_precision)', () => {
    expect(warnings(web([{ ...pageLog, time: '2025-06-01T10:00:00.123456Z' }]))).toEqual([['$.data[0].time', 'time_precision']]);
  });
});

describe('a quirk of some versions of a line is gated by the sdk version', () => {
  const media = { block: 'core', ol: true, ts: '2025-06-01T10:00:00.000Z', type: 'media', props: { id: 'vid-1', type: 'video', action: 'View', time: 0 } };
  it('enum_spelling (causalfoundry/ios-sdk 0.4.3–0.5.3): accepted from ios/0.5.3, `enum` from ios/1.2.3', () => {
    expect(warnings(earlier('ios/0.5.3', [media]))).toEqual([['$.data[0].props.action', 'enum_spelling']]);
    expect(reasons(earlier('ios/1.2.3', [media]))).toEqual([['$.data[0].props.action', 'enum']]);
  });

  it('the delivery default (0.4.3–0.5.3 for the older line): `required` from ios/0.9.7 and ios/1.2.3', () => {
    const delivery = {
      block: 'e_commerce',
      ol: true,
      ts: '2025-06-01T10:00:00.000Z',
      type: 'delivery',
      props: { id: 'd-1', order_id: 'o-1', action: 'delivered' },
    };
    expect(warnings(earlier('ios/0.5.3', [delivery]))).toEqual([['$.data[0].props.is_urgent', 'default_applied']]);
    expect(reasons(earlier('ios/0.9.7', [delivery]))).toEqual([['$.data[0].props.is_urgent', 'required']]);
    expect(reasons(earlier('ios/1.2.3', [delivery]))).toEqual([['$.data[0].props.is_urgent', 'required']]);
  });
});

describe('a quirk verified in the client source: Kenkai’s empty redeem currency', () => {
  // KenkaiSDKLoyalty RewardEventObject.swift:45 (tag 1.0.1): `redeemCurrency?.rawValue ?? ""`, flattened as redeem_currency.
  const ctx = {
    __ol: true,
    id: 'rwd-1',
    action: 'redeem',
    acc_points: 0,
    total_points: 1200,
    redeem_type: 'points',
    redeem_points_withdrawn: 500,
    redeem_converted_value: 0,
    redeem_is_successful: 1,
    redeem_currency: '',
  };
  it('is accepted from ios/1.0.1 (redeem_currency_empty) and `currency_code` from web/1.0.0', () => {
    expect(warnings(kenkai([log('reward', 'redeem', ctx)])).map(([, rule]) => rule)).toContain('redeem_currency_empty');
    const plain = {
      __ol: true,
      id: 'rwd-1',
      action: 'redeem',
      acc_points: 0,
      total_points: 1200,
      redeem: { type: 'points', points_withdrawn: 500, converted_value: 0, is_successful: true, currency: '' },
    };
    expect(reasons(web([log('reward', 'redeem', plain)]))).toEqual([['$.data[0].ctx.redeem.currency', 'currency_code']]);
  });
});

describe('envelope quirks with a warning as the spec rule', () => {
  it.each([
    ['2.3 (45)', 'app_version_two_part', '2.3'],
    ['0.0 (45)', 'app_version_unknown', ''],
  ])('app version %s: %s from ios/1.0.1, app_version_shape from web/1.0.0 (the reading kept)', (version, quirk, read) => {
    const login = log('identify', 'login', { __ol: true, action: 'login' });
    const k = normalizeUpload(web([login], { sdk: 'ios/1.0.1', a_ver: version }), ctx).accepted[0]!;
    expect([k.event.app_version, k.warnings.map((w) => [w.path, w.rule])]).toEqual([read, [['$.internal.app_version', quirk]]]);
    const w = normalizeUpload(web([login], { a_ver: version }), ctx).accepted[0]!;
    expect([w.event.app_version, w.warnings.map((x) => [x.path, x.rule])]).toEqual([read, [['$.internal.app_version', 'app_version_shape']]]);
    expect(w.warnings[0]!.message).toContain(`(${quirk}), accepted only from those clients`);
  });
});

describe('every reason of an event in one answer', () => {
  const checkout = {
    __ol: true,
    id: 'order-1',
    cart_id: 'cart-1',
    cart_price: 99.5,
    currency: 'USD',
    shop_mode: 'pickup',
    items: [{ id: 'drug-1', type: 'drug', quantity: 1, price: 49.5 }],
    is_successful: true,
  };

  it('names a negative cart_price and an unknown currency together', () => {
    expect(warnings(web([log('checkout', 'purchase', checkout)]))).toEqual([]);
    expect(reasons(web([log('checkout', 'purchase', { ...checkout, cart_price: -5, currency: 'XXY' })]))).toEqual([
      ['$.data[0].ctx.cart_price', 'range'],
      ['$.data[0].ctx.currency', 'currency_code'],
    ]);
  });

  it('names the log’s own faults (time, __ol, property) with those of its properties', () => {
    const bad = { time: 'yesterday', __ol: 'yes', name: 'checkout', ctx: { ...checkout, cart_price: -5 } };
    expect(reasons(web([bad]))).toEqual([
      ['$.data[0].__ol', 'type'],
      ['$.data[0].property', 'required'],
      ['$.data[0].time', 'time_format'],
      ['$.data[0].ctx.cart_price', 'range'],
    ]);
  });

  it('does not repeat a rule at a path already reported: a number for currency is `type` only', () => {
    expect(reasons(web([log('checkout', 'purchase', { ...checkout, currency: 5 })]))).toEqual([['$.data[0].ctx.currency', 'type']]);
  });
});

describe('future-dated events', () => {
  it('carry future_time past the tolerance, with the time kept as sent', () => {
    const at = (ms: number) => ({ ...pageLog, time: new Date(ms).toISOString() });
    expect(warnings(web([at(ctx.receivedAt + FUTURE_TIME_TOLERANCE_MS)]))).toEqual([]);
    const r = normalizeUpload(web([at(ctx.receivedAt + 15 * 3_600_000)]), ctx);
    expect(r.accepted[0]!.event.time).toBe(ctx.receivedAt + 15 * 3_600_000);
    expect(r.accepted[0]!.warnings).toEqual([
      {
        path: '$.data[0].time',
        rule: 'future_time',
        message: 'the event is dated 15.0 h after the upload was received (tolerance 10 min): kept as sent; check the device clock and time zone',
      },
    ]);
  });
});

describe('every R field of the envelopes (spec 2.1, 2.2) is required', () => {
  const current = web([pageLog]);
  it.each([
    ['id', ['id']],
    ['tz', ['tz']],
    ['internal', ['internal']],
    ['internal.s_id', ['internal', 's_id']],
    ['internal.sdk', ['internal', 'sdk']],
    // Reported under the field table's name (2.1 lists both spellings; the sample's is what was sent).
    ['internal.app_id', ['internal', 'a_id']],
    ['internal.app_version', ['internal', 'a_ver']],
    ['internal.device_id', ['internal', 'd_id']],
    ['internal.device_os', ['internal', 'os']],
  ])('current form without %s', (path, keys) => {
    const body = structuredClone(current) as Record<string, any>;
    const parent = keys.slice(0, -1).reduce((o, k) => o[k], body);
    delete parent[keys.at(-1)!];
    expect(reasons(body)).toContainEqual([`$.${path}`, 'required']);
  });

  const earlierBody = earlierEnvelope([{ block: 'core', ol: true, ts: '2025-06-01T10:00:00.000Z', type: 'identify', props: { action: 'login' } }]);
  it.each([
    's_id',
    'u_id',
    'd_info',
    'app_info',
    'sdk',
    'up',
    'dn',
    'd_info.brand',
    'd_info.id',
    'd_info.model',
    'd_info.os',
    'd_info.os_ver',
    'app_info.id',
    'app_info.min_sdk_version',
    'app_info.target_sdk_version',
    'app_info.version_code',
    'app_info.version_name',
    'app_info.version',
    'data[0].block',
    'data[0].ol',
    'data[0].ts',
    'data[0].type',
    'data[0].props',
  ])('earlier form without %s', (path) => {
    const body = structuredClone(earlierBody) as Record<string, any>;
    const keys = path.replace('[0]', '.0').split('.');
    const parent = keys.slice(0, -1).reduce((o, k) => o[k], body);
    delete parent[keys.at(-1)!];
    expect(reasons(body)).toContainEqual([`$.${path}`, 'required']);
  });
});
