import { looksFlat } from '@evp/contract';
import avro from 'avsc';
import { blockEventSchema } from '../avro/block-schema';
import { canonicalFromAvro, canonicalToAvro } from '../avro/canonical-codec';
import { ctx as fixtureCtx, earlierEnvelope } from '../__fixtures__/envelopes';
import { normalizeUpload } from './normalize';

// Received after the 2025 times these clients' logs carry (an earlier receipt would flag them future_time).
const ctx = { ...fixtureCtx, receivedAt: Date.UTC(2026, 0, 1) };

/** A log as the synthetic data generator builds it (log_base.py as_payload_dict). */
const log = (over: Record<string, unknown> = {}) => ({
  u_id: 'average-6513',
  d_id: '-3468023718459170331',
  os: 'android',
  ol: true,
  ts: '2025-03-04T09:12:45.381204Z',
  type: 'identify',
  ip: '0.0.0.0',
  up: 63849,
  dn: 16846,
  block: 'core',
  props: { action: 'register' },
  ...over,
});

const rules = (ws: readonly { rule: string }[]) => ws.map((w) => w.rule);
const FLAT_WARNING = {
  path: '$.data[0]',
  rule: 'flat_envelope',
  message: 'a flat log (server-side import): no session, sdk, app version or tz, so those fields are empty',
};

describe('the flat form (server-side import)', () => {
  it('turns a flat log into the exact canonical event', () => {
    const r = normalizeUpload({ data: [log()] }, ctx);
    expect(r.rejected).toEqual([]);
    expect(r.accepted[0]!.event).toEqual({
      event_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      app_id: 'app-1',
      user_id: 'average-6513',
      session_id: '',
      session_start: null,
      session_end: null,
      device_id: '-3468023718459170331',
      os: 'android',
      sdk_name: '',
      sdk_version: '',
      app_version: '',
      app_version_code: null,
      tz: '',
      block: 'core',
      name: 'identify',
      sent_name: null,
      property: null,
      time: Date.UTC(2025, 2, 4, 9, 12, 45, 381),
      online: true,
      received_at: ctx.receivedAt,
      sent_at: null,
      corrected_time: Date.UTC(2025, 2, 4, 9, 12, 45, 381),
      request_id: 'req-1',
      pseudonym_key: null,
      envelope: 'flat',
      props: { action: 'register' },
      meta: null,
      client: { ip: '0.0.0.0', up: 63849, dn: 16846 },
      warnings: [FLAT_WARNING, { path: '$.data[0].ts', rule: 'time_precision', message: 'time has digits below the millisecond; read to the millisecond' }],
    });
  });

  it('reads every log with its own user, and keeps unknown log and body keys in client', () => {
    const body = { data: [log({ u_id: 'a', ts: '2025-03-04T09:12:45.000000Z' }), log({ u_id: 'b', ts: '2025-03-04T09:12:45.381Z', extra_key: 1 })], batch: 7 };
    const r = normalizeUpload(body, ctx);
    expect(r.accepted.map((a) => [a.event_index, a.event.user_id, a.event.client, rules(a.warnings)])).toEqual([
      [0, 'a', { ip: '0.0.0.0', up: 63849, dn: 16846, envelope_extra: { batch: 7 } }, ['flat_envelope']],
      [1, 'b', { ip: '0.0.0.0', up: 63849, dn: 16846, envelope_extra: { batch: 7 }, event_extra: { extra_key: 1 } }, ['flat_envelope']],
    ]);
  });

  it('rejects only a log without a user (or device, os), as the earlier form rejects a broken log', () => {
    const r = normalizeUpload({ data: [log(), log({ u_id: undefined, d_id: 7, os: '' }), log({ props: 'x' })] }, ctx);
    expect(r.accepted.map((a) => a.event_index)).toEqual([0]);
    expect(r.rejected.map((x) => [x.kind, x.event_index, x.event_count, x.reasons.map((e) => `${e.path} ${e.rule}`)])).toEqual([
      ['schema_violation', 1, 1, ['$.data[1].u_id required', '$.data[1].d_id type', '$.data[1].os type']],
      ['schema_violation', 2, 1, ['$.data[2].props type']],
    ]);
    // The rejected record keeps the log as sent (u_id absent; JSON drops undefined).
    expect(r.rejected[0]!.payload).toEqual(log({ u_id: undefined, d_id: 7, os: '' }));
  });

  it('reads hyphenated blocks (block_spelling) and still checks the block', () => {
    const item = { action: 'view', item: { id: 'i', type: 'drug', quantity: 1, price: 2, currency: 'USD' } };
    const r = normalizeUpload(
      { data: [log({ type: 'item', block: 'e-commerce', props: item }), log({ type: 'item', block: 'e-learning', props: item })] },
      ctx,
    );
    expect(r.accepted[0]!.event.block).toBe('e_commerce');
    expect(r.accepted[0]!.warnings[1]).toEqual({ path: '$.data[0].block', rule: 'block_spelling', message: '"e-commerce" read as e_commerce' });
    expect(r.rejected[0]!.reasons).toEqual([{ path: '$.data[1].block', rule: 'block_mismatch', message: 'item belongs to block e_commerce, not e-learning' }]);
  });

  it('lets the flat form omit device measurements (required_missing); the earlier form may not', () => {
    const page = { type: 'page', props: { path: '/', title: 'Home', duration: 1.5 } };
    const flat = normalizeUpload({ data: [log(page)] }, ctx);
    expect(flat.accepted[0]!.event.props).toEqual({ path: '/', title: 'Home', duration: 1.5 });
    expect(flat.accepted[0]!.warnings[2]).toEqual({
      path: '$.data[0].props.render_time',
      rule: 'required_missing',
      message: 'render_time is required by the spec but it is measured on the device, and a server-side import has no such measurement; accepted without it',
    });
    const earlier = normalizeUpload(earlierEnvelope([{ block: 'core', ol: true, ts: '2025-03-04T09:12:45Z', ...page }]), ctx);
    expect(earlier.rejected[0]!.reasons.map((e) => `${e.path} ${e.rule}`)).toEqual(['$.data[0].props.render_time required']);
  });

  it('encodes an event with an omitted required field in Avro (the field is nullable) and reads it back', () => {
    const [a] = normalizeUpload({ data: [log({ type: 'page', props: { path: '/', title: 'T', duration: 1 } })] }, ctx).accepted;
    const type = avro.Type.forSchema(blockEventSchema('core') as avro.Schema);
    const back = canonicalFromAvro(type.fromBuffer(type.toBuffer(canonicalToAvro(a!.event))) as Record<string, unknown>);
    expect(back).toEqual(a!.event);
  });

  it('defaults app start_time to 0 except for open (default_applied / required_missing)', () => {
    const r = normalizeUpload({ data: ['open', 'close', 'resume', 'background'].map((action) => log({ type: 'app', props: { action } })) }, ctx);
    expect(r.accepted.map((a) => [a.event.props, rules(a.warnings)])).toEqual([
      [{ action: 'open' }, ['flat_envelope', 'time_precision', 'required_missing']],
      [{ action: 'close', start_time: 0 }, ['flat_envelope', 'default_applied', 'time_precision']],
      [{ action: 'resume', start_time: 0 }, ['flat_envelope', 'default_applied', 'time_precision']],
      [{ action: 'background', start_time: 0 }, ['flat_envelope', 'default_applied', 'time_precision']],
    ]);
  });

  it('reads search without module as module core (default_applied)', () => {
    const r = normalizeUpload({ data: [log({ type: 'search', props: { id: 's-1', query: 'q', page: 1, results_list: [] } })] }, ctx);
    expect(r.accepted[0]!.event.props).toEqual({ query: 'q', module: 'core', page: 1, results_list: [], __extra: { id: 's-1' } });
    expect(r.accepted[0]!.warnings[1]).toEqual({
      path: '$.data[0].props.module',
      rule: 'default_applied',
      message: 'module is absent; core, the block the search was logged in',
    });
  });

  it('reads schedule_delivery as delivery: event_alias, id from order_id (default_applied), delivery_ts (property_alias)', () => {
    const props = { order_id: 'o-1', is_urgent: false, action: 'schedule', delivery_ts: '2025-03-06T11:49:27.840000Z' };
    const r = normalizeUpload({ data: [log({ type: 'schedule_delivery', block: 'e-commerce', ts: '2025-03-05T12:25:17.791Z', props })] }, ctx);
    const e = r.accepted[0]!.event;
    expect([e.name, e.sent_name, e.block, e.props]).toEqual([
      'delivery',
      'schedule_delivery',
      'e_commerce',
      { id: 'o-1', order_id: 'o-1', action: 'schedule', is_urgent: false, est_delivery_ts: '2025-03-06T11:49:27.840000Z' },
    ]);
    expect(r.accepted[0]!.warnings.map((w) => `${w.path} ${w.rule}`)).toEqual([
      '$.data[0] flat_envelope',
      '$.data[0].type event_alias',
      '$.data[0].block block_spelling',
      '$.data[0].props.id default_applied',
      '$.data[0].props.delivery_ts property_alias',
    ]);
  });

  it("reads the generator's nudge_response: nudge_id → ref, response {action} → action, time from ts", () => {
    const props = { nudge_id: '4:9', type: 'push_notification', response: { action: 'open' }, resolved_action: { type: 'message' } };
    const r = normalizeUpload({ data: [log({ type: 'nudge_response', ts: '2025-03-04T14:02:11.504Z', props })] }, ctx);
    expect(r.accepted[0]!.event.props).toEqual({
      ref: '4:9',
      time: '2025-03-04T14:02:11.504Z',
      response: 'open',
      __extra: { type: 'push_notification', resolved_action: { type: 'message' } },
    });
    expect(r.accepted[0]!.warnings.map((w) => `${w.path} ${w.rule}`)).toEqual([
      '$.data[0] flat_envelope',
      '$.data[0].props.nudge_id property_alias',
      '$.data[0].props.response type_coerced',
      '$.data[0].props.time default_applied',
      '$.data[0].props.type unknown_property',
      '$.data[0].props.resolved_action unknown_property',
    ]);
  });

  it('reads a numeric nudge_id as its decimal text, saying when JSON already lost digits', () => {
    const body =
      '{"data":[' +
      JSON.stringify(log({ type: 'nudge_response', props: { response: { action: 'discard' } } })).replace(
        '"props":{',
        '"props":{"nudge_id":-6047123874458392451,',
      ) +
      ']}';
    const r = normalizeUpload(JSON.parse(body), ctx);
    expect(r.accepted[0]!.event.props.ref).toBe('-6047123874458393000');
    expect(r.accepted[0]!.warnings.filter((w) => w.path.endsWith('nudge_id')).map((w) => w.rule)).toEqual([
      'property_alias',
      'type_coerced',
      'number_precision',
    ]);
    const small = normalizeUpload({ data: [log({ type: 'nudge_response', props: { nudge_id: -42, response: { action: 'block' } } })] }, ctx);
    expect(small.accepted[0]!.event.props.ref).toBe('-42');
    expect(rules(small.accepted[0]!.warnings)).not.toContain('number_precision');
  });

  it('keeps a sent ref and time, and rejects a response object it cannot read whole', () => {
    const kept = normalizeUpload({ data: [log({ type: 'nudge_response', props: { ref: '1:2', time: 't', response: 'shown', nudge_id: 'x' } })] }, ctx);
    expect(kept.accepted[0]!.event.props).toEqual({ ref: '1:2', time: 't', response: 'shown', __extra: { nudge_id: 'x' } });
    const r = normalizeUpload({ data: [log({ type: 'nudge_response', props: { nudge_id: '1:2', response: { action: 'open', at: 5 } } })] }, ctx);
    expect(r.rejected[0]!.reasons.map((e) => `${e.path} ${e.rule}`)).toEqual(['$.data[0].props.response enum']);
  });

  it('is told apart from the spec forms', () => {
    expect(looksFlat({ data: [log()] })).toBe(true);
    expect(looksFlat({ data: [{ type: 'page' }, log()] })).toBe(true);
    expect(looksFlat({ data: [] })).toBe(false);
    expect(looksFlat({ data: [{ type: 'page' }] })).toBe(false);
    // An envelope key makes it a (possibly broken) spec envelope, judged as such.
    for (const k of ['id', 'u_id', 's_id', 'tz', 'internal', 'd_info', 'app_info', 'sdk']) expect(looksFlat({ [k]: 'x', data: [log()] })).toBe(false);
    const r = normalizeUpload({ id: 'u', data: [log()] }, ctx);
    expect(r.rejected[0]!.kind).toBe('envelope_violation');
  });
});

describe('client quirks shared by the clients that send them', () => {
  // causalfoundry/ios-sdk 0.4.3–0.5.3 sent schedule_delivery too, in the earlier form: gated by that sdk.
  const cf = (data: unknown[]) => ({ ...earlierEnvelope(data), sdk: 'ios/0.5.3' });
  it("schedule_delivery is an event_alias of delivery in the older iOS line's earlier form too, its missing id the order id there too (the one client default)", () => {
    const props = { id: 'd-1', order_id: 'o-1', is_urgent: true, action: 'update' };
    const r = normalizeUpload(cf([{ block: 'e_commerce', ol: true, ts: '2025-03-04T09:12:45Z', type: 'schedule_delivery', props }]), ctx);
    expect([r.accepted[0]!.event.name, r.accepted[0]!.event.sent_name, rules(r.accepted[0]!.warnings)]).toEqual([
      'delivery',
      'schedule_delivery',
      ['event_alias'],
    ]);
    const noId = normalizeUpload(
      cf([{ block: 'e_commerce', ol: true, ts: '2025-03-04T09:12:45Z', type: 'schedule_delivery', props: { ...props, id: undefined } }]),
      ctx,
    );
    expect([noId.accepted[0]!.event.props.id, rules(noId.accepted[0]!.warnings)]).toEqual(['o-1', ['event_alias', 'default_applied']]);
  });

  it('from any other earlier-form client (android_2.0.0) schedule_delivery is no event, and a delivery without id is rejected', () => {
    const props = { order_id: 'o-1', is_urgent: true, action: 'update' };
    const r = normalizeUpload(earlierEnvelope([{ block: 'e_commerce', ol: true, ts: '2025-03-04T09:12:45Z', type: 'schedule_delivery', props }]), ctx);
    expect(r.accepted).toEqual([]);
    expect(r.rejected[0]!.reasons.map((e) => [e.path, e.rule])).toEqual([
      ['$.data[0].type', 'unknown_event'],
      ['$.data[0].props.id', 'required'],
    ]);
    expect(r.rejected[0]!.reasons[0]!.message).toContain('(event_alias), accepted only from those clients');
  });

  it('reports sub-millisecond digits (time_precision), but not trailing zeros', () => {
    const at = (ts: string) =>
      rules(normalizeUpload(earlierEnvelope([{ block: 'core', ol: true, ts, type: 'identify', props: { action: 'login' } }]), ctx).accepted[0]!.warnings);
    expect(at('2025-03-04T09:12:45.381204Z')).toEqual(['time_precision']);
    expect(at('2025-03-04T09:12:45.3810Z')).toEqual([]);
    expect(at('2025-03-04T09:12:45.381Z')).toEqual([]);
    expect(at('2025-03-04T09:12:45Z')).toEqual([]);
  });

  it('reads a rate of a shop item type as item (enum_alias)', () => {
    const r = normalizeUpload({ data: [log({ type: 'rate', props: { subject_id: 's', type: 'medical_equipment', rate_value: 3.5 } })] }, ctx);
    expect(r.accepted[0]!.event.props).toEqual({ rate_value: 3.5, type: 'item', subject_id: 's' });
    expect(r.accepted[0]!.warnings[2]).toEqual({
      path: '$.data[0].props.type',
      rule: 'enum_alias',
      message: '"medical_equipment" is a client spelling of item',
    });
  });
});
