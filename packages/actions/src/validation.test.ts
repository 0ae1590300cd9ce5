import { MAX_GIVEN_ID } from './model';
import { jsonPath, parseActionRequestMessage, parseCreateRequest, parseNewAction, parsePullRequest, parseSdkPullRequest } from './validation';

const action = {
  user_id: 'u',
  type: 'message',
  render_method: 'in_app_message',
  delivery_mode: 'cached',
  content: { title: 't', body: 'b' },
  expired_at: '0001-01-01T00:00:00Z',
};

describe('parseNewAction', () => {
  it('checks one action as a create request does, paths under the prefix', () => {
    expect(parseNewAction(action)).toEqual({ ok: true, value: { ...action, attr: {}, tags: [] } });
    expect(parseNewAction({ ...action, type: 'custom', render_method: 'push_notification', foo: 1 }, ['variants', 1, 'action'])).toEqual({
      ok: false,
      reasons: [
        { path: '$.variants[1].action.foo', rule: 'unknown_field', message: 'unknown field' },
        {
          path: '$.variants[1].action.render_method',
          rule: 'type_render_method',
          message: "type 'custom' allows render_method in_app_message, generic_message",
        },
      ],
    });
  });
});

describe('parseCreateRequest', () => {
  it('fills defaults and keeps given ids', () => {
    expect(parseCreateRequest([{ ...action, inv_id: 0, action_id: MAX_GIVEN_ID }])).toEqual({
      ok: true,
      value: [{ ...action, attr: {}, tags: [], inv_id: 0, action_id: MAX_GIVEN_ID }],
    });
  });

  it('gives the same value for both body forms', () => {
    expect(parseCreateRequest({ actions: [action] })).toEqual(parseCreateRequest([action]));
  });

  it('reports each unknown field at its own path', () => {
    const r = parseCreateRequest({ actions: [{ ...action, foo: 1, bar: 2 }] });
    expect(r).toEqual({
      ok: false,
      reasons: [
        { path: '$.actions[0].foo', rule: 'unknown_field', message: 'unknown field' },
        { path: '$.actions[0].bar', rule: 'unknown_field', message: 'unknown field' },
      ],
    });
  });

  it('enforces the type↔render_method rule with a message naming the allowed methods', () => {
    const r = parseCreateRequest([{ ...action, type: 'custom', render_method: 'push_notification' }]);
    expect(r).toEqual({
      ok: false,
      reasons: [{ path: '$[0].render_method', rule: 'type_render_method', message: "type 'custom' allows render_method in_app_message, generic_message" }],
    });
  });

  it('limits attributes to 50 pairs', () => {
    const attr = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    const r = parseCreateRequest([{ ...action, attr }]);
    expect(r.ok ? [] : r.reasons.map((i) => [i.path, i.message])).toEqual([['$[0].attr', 'at most 50 entries']]);
  });

  it.each([null, 42, 'x', true])('rejects a %p body at $', (body) => {
    expect(parseCreateRequest(body)).toEqual({
      ok: false,
      reasons: [{ path: '$', rule: 'type', message: 'the body must be an array of actions or an object {"actions": [...]}' }],
    });
  });
});

describe('caps and available_at on POST /v1/actions', () => {
  it('accepts available_at but refuses caps, which are for campaigns (actions.requested)', () => {
    const ok = parseCreateRequest([{ ...action, available_at: '2030-01-01T09:00:00Z' }]);
    expect(ok.ok && ok.value[0]?.available_at).toBe('2030-01-01T09:00:00Z');
    const r = parseCreateRequest({ actions: [{ ...action, caps: { app: { max: 1 } } }] });
    expect(r.ok ? null : r.reasons.map((i) => [i.path, i.rule])).toEqual([['$.actions[0].caps', 'unknown_field']]);
  });
});

describe('parsePullRequest / parseSdkPullRequest', () => {
  const pull = { user_id: '*', type: 'custom', render_method: 'generic_message', delivery_mode: 'one-off' };

  it('accepts spec 4.1 exactly, with optional attr and cursor', () => {
    expect(parsePullRequest({ ...pull, attr: { a: 'b' }, cursor: '17' })).toEqual({ ok: true, value: { ...pull, attr: { a: 'b' }, cursor: '17' } });
  });

  it('does not accept client spellings on the bulk pull', () => {
    const r = parsePullRequest({ ...pull, type: 'UIComponent' });
    expect(r.ok ? null : r.reasons.map((i) => i.path)).toEqual(['$.type']);
  });

  it.each([
    [
      { type: 'ui-component', render_method: 'in_app_component', delivery_mode: 'OneOff' },
      { type: 'custom', render_method: 'generic_message', delivery_mode: 'one-off' },
    ],
    [
      { type: 'ui_component', render_method: 'in-app-component', delivery_mode: 'one_off' },
      { type: 'custom', render_method: 'generic_message', delivery_mode: 'one-off' },
    ],
    [
      { type: 'Custom', render_method: 'InAppMessage', delivery_mode: 'Cached' },
      { type: 'custom', render_method: 'in_app_message', delivery_mode: 'cached' },
    ],
    [
      { type: 'Message', render_method: 'PushNotification', delivery_mode: 'cached' },
      { type: 'message', render_method: 'push_notification', delivery_mode: 'cached' },
    ],
    [
      { type: 'message', render_method: 'GenericMessage', delivery_mode: 'cached' },
      { type: 'message', render_method: 'generic_message', delivery_mode: 'cached' },
    ],
  ])('maps SDK spellings %p to %p', (given, canonical) => {
    expect(parseSdkPullRequest({ user_id: 'u', ...given })).toEqual({ ok: true, value: { user_id: 'u', ...canonical } });
  });

  it("refuses '*' on the SDK pull", () => {
    const r = parseSdkPullRequest({ ...pull, user_id: '*' });
    expect(r.ok ? null : r.reasons).toEqual([
      { path: '$.user_id', rule: 'invalid', message: "the SDK pull serves one user; '*' needs the bulk pull with an API key" },
    ]);
  });

  it('ignores inherited property names as aliases', () => {
    const r = parseSdkPullRequest({ ...pull, user_id: 'u', type: 'toString' });
    expect(r.ok ? null : r.reasons.map((i) => [i.path, i.rule])).toEqual([['$.type', 'enum']]);
  });
});

describe('parseActionRequestMessage', () => {
  it('requires both ids on every action so redelivery cannot duplicate', () => {
    const r = parseActionRequestMessage({ app_id: 'app-1', actions: [{ ...action, inv_id: 1 }] });
    expect(r.ok ? null : r.reasons.map((i) => [i.path, i.rule])).toEqual([['$.actions[0].action_id', 'required']]);
  });

  it('accepts a well-formed message', () => {
    const r = parseActionRequestMessage({ app_id: 'app-1', actions: [{ ...action, inv_id: 1, action_id: 2 }] });
    expect(r).toEqual({ ok: true, value: { app_id: 'app-1', actions: [{ ...action, attr: {}, tags: [], inv_id: 1, action_id: 2 }] } });
  });

  it('accepts a source of 1–128 characters for the action log', () => {
    const msg = (source: unknown) => ({ app_id: 'app-1', source, actions: [{ ...action, inv_id: 1, action_id: 2 }] });
    const ok = parseActionRequestMessage(msg('campaign:42'));
    expect(ok.ok && ok.value.source).toBe('campaign:42');
    for (const [source, rule] of [
      ['', 'min'],
      ['x'.repeat(129), 'max'],
      [7, 'type'],
    ] as const) {
      const r = parseActionRequestMessage(msg(source));
      expect(r.ok ? null : r.reasons.map((i) => [i.path, i.rule])).toEqual([['$.source', rule]]);
    }
  });

  it('accepts per-action caps and available_at, and checks each with its path', () => {
    const caps = { campaign: { key: 'campaign-42', max: 1, within_ms: 86_400_000 }, app: { max: 3 } };
    const one = { ...action, inv_id: 1, action_id: 2, caps, available_at: '2030-01-01T09:00:00+05:45' };
    const ok = parseActionRequestMessage({ app_id: 'app-1', actions: [one] });
    expect(ok).toEqual({ ok: true, value: { app_id: 'app-1', actions: [{ ...one, attr: {}, tags: [] }] } });
    const bad = parseActionRequestMessage({
      app_id: 'app-1',
      actions: [
        { ...one, caps: { campaign: { key: '', max: 0, within_ms: 1.5 }, app: { max: 'x' } } },
        { ...one, caps: { campaign: { key: 'k', max: 1 }, daily: 3 }, available_at: 'tomorrow' },
      ],
    });
    expect(bad.ok ? null : bad.reasons.map((i) => [i.path, i.rule])).toEqual([
      ['$.actions[0].caps.campaign.key', 'min'],
      ['$.actions[0].caps.campaign.max', 'min'],
      ['$.actions[0].caps.campaign.within_ms', 'type'],
      ['$.actions[0].caps.app.max', 'type'],
      ['$.actions[1].available_at', 'invalid'],
      ['$.actions[1].caps.campaign.within_ms', 'required'],
      ['$.actions[1].caps.daily', 'unknown_field'],
    ]);
  });

  it('rejects an app id that could not be a key', () => {
    const r = parseActionRequestMessage({ app_id: 'a}b', actions: [{ ...action, inv_id: 1, action_id: 2 }] });
    expect(r.ok ? null : r.reasons.map((i) => i.path)).toEqual(['$.app_id']);
  });
});

describe('jsonPath', () => {
  it('uses dots for identifiers, brackets for indices and quoted names', () => {
    expect(jsonPath(['actions', 3, 'attr', 'a b', '_x1', '1a'])).toBe('$.actions[3].attr["a b"]._x1["1a"]');
    expect(jsonPath([])).toBe('$');
  });
});
