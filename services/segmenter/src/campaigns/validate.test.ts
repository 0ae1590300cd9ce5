import { TemplateEngine } from './templates';
import { validateCampaign } from './validate';

const ctx = { segmentExists: (id: string) => id === 'seg-buyers', templates: new TemplateEngine() };

const action = {
  type: 'message',
  render_method: 'push_notification',
  delivery_mode: 'one-off',
  content: { title: 'Still thinking about {{ catalog.drug[event.item.id].name }}?', body: 'Hi {{ user.name | default: "there" }}, it is in stock.' },
  attr: { campaign: 'refill' },
  tags: ['refill'],
  expires_after: 'P3D',
};

const valid = {
  name: 'Refill reminder',
  trigger: {
    event: {
      event: 'item',
      where: [
        { prop: 'action', op: 'eq', value: 'view' },
        { prop: 'item.type', op: 'eq', value: 'drug' },
      ],
    },
  },
  action,
  variants: [
    { weight: 1, action: {} },
    { weight: 1, action: { content: { title: 'Your {{ catalog.drug[event.item.id].name }} is waiting' } } },
  ],
  holdout: 0.1,
  caps: { per_user: { max: 1, within: 'P7D' } },
  quiet_hours: { start: '21:00', end: '08:00' },
  send_at_local: '09:00',
  goal: { event: 'checkout', where: [{ prop: 'is_successful', op: 'eq', value: true }], within: 'P3D' },
  start_at: '2026-03-01T00:00:00Z',
  end_at: '2026-04-01T00:00:00Z',
  rate_per_second: 100,
};

const problemsOf = (json: unknown) => {
  const r = validateCampaign(json, ctx);
  return r.ok ? [] : r.reasons.map((p) => [p.path, p.rule]);
};
const messagesOf = (json: unknown) => {
  const r = validateCampaign(json, ctx);
  return r.ok ? [] : r.reasons.map((p) => `${p.path} ${p.rule}: ${p.message}`);
};
const minimal = (over: Record<string, unknown>) => ({ name: 'n', trigger: { api: true }, action: { ...action, content: { title: 't', body: 'b' } }, ...over });

describe('validateCampaign', () => {
  it('accepts a full document and gives a copy of it', () => {
    const r = validateCampaign(valid, ctx);
    expect(r).toEqual({ ok: true, value: valid });
    expect(r.ok && r.value).not.toBe(valid);
  });

  it.each([
    ['segment_entry', { segment_entry: 'seg-buyers' }],
    ['schedule at', { schedule: { at: '2026-03-02T09:00:00Z' }, segment: 'seg-buyers' }],
    ['schedule every', { schedule: { every: 'P1D' }, segment: 'seg-buyers' }],
    ['api', { api: true }],
  ])('accepts a %s trigger', (_, trigger) => {
    expect(problemsOf(minimal({ trigger }))).toEqual([]);
  });

  it('refuses what is not an object, and unknown keys', () => {
    expect(messagesOf([])).toEqual(['$ type: a campaign must be a JSON object, got an array']);
    expect(problemsOf(minimal({ colour: 'red' }))).toEqual([['$.colour', 'unknown_key']]);
    expect(problemsOf({})).toEqual([
      ['$.name', 'required'],
      ['$.trigger', 'required'],
      ['$.action', 'required'],
    ]);
  });

  describe('trigger', () => {
    it('reports the segment language reasons of an event trigger at their place in the document', () => {
      const trigger = {
        event: {
          event: 'item',
          where: [
            { prop: 'action', op: 'like', value: 'view' },
            { prop: 'item.colour', op: 'eq', value: 'red' },
          ],
        },
      };
      expect(messagesOf(minimal({ trigger }))).toEqual([
        '$.trigger.event.where[0].op unknown_op: "like" is not an operator: one of eq, neq, in, nin, gt, gte, lt, lte, contains, exists',
        '$.trigger.event.where[1].prop unknown_property: item.colour is not a property of event item',
      ]);
      expect(problemsOf(minimal({ trigger: { event: { event: 'teleport' } } }))).toEqual([['$.trigger.event.event', 'unknown_event']]);
    });

    it('refuses count and within on a trigger, and a condition that is no event condition', () => {
      expect(messagesOf(minimal({ trigger: { event: { event: 'item', count: { gte: 3 }, within: 'P1D' } } }))).toEqual([
        '$.trigger.event.count unsupported: a trigger acts on each matching event: for a count or a window, define a segment and trigger on segment_entry',
        '$.trigger.event.within unsupported: a trigger acts on each matching event: for a count or a window, define a segment and trigger on segment_entry',
      ]);
      expect(problemsOf(minimal({ trigger: { event: { all: [{ event: 'item' }] } } }))).toEqual([['$.trigger.event', 'condition_kind']]);
    });

    it('is exactly one kind, with its own keys', () => {
      expect(messagesOf(minimal({ trigger: { api: true, segment_entry: 'seg-buyers' } }))).toEqual([
        '$.trigger trigger_kind: a trigger is exactly one of {"segment_entry": ID}, {"event": CONDITION}, {"schedule": {"at"|"every": …}, "segment": ID} or {"api": true}; this one has segment_entry and api',
      ]);
      expect(problemsOf(minimal({ trigger: { segment: 'seg-buyers' } }))).toEqual([['$.trigger', 'trigger_kind']]);
      expect(problemsOf(minimal({ trigger: { api: false } }))).toEqual([['$.trigger.api', 'type']]);
      expect(problemsOf(minimal({ trigger: { segment_entry: 'seg-buyers', segment: 'x' } }))).toEqual([['$.trigger.segment', 'unknown_key']]);
    });

    it('names segments that exist', () => {
      expect(messagesOf(minimal({ trigger: { segment_entry: 'seg-gone' } }))).toEqual([
        '$.trigger.segment_entry unknown_segment: no segment seg-gone in this app',
      ]);
      expect(problemsOf(minimal({ trigger: { schedule: { every: 'P1D' }, segment: 'seg-gone' } }))).toEqual([['$.trigger.segment', 'unknown_segment']]);
      expect(problemsOf(minimal({ trigger: { schedule: { every: 'P1D' } } }))).toEqual([['$.trigger.segment', 'required']]);
    });

    it('schedules once or repeatedly, at most hourly', () => {
      const schedule = (s: unknown) => problemsOf(minimal({ trigger: { schedule: s, segment: 'seg-buyers' } }));
      expect(schedule({ at: '2026-03-02T09:00:00Z', every: 'P1D' })).toEqual([['$.trigger.schedule.every', 'one_of']]);
      expect(schedule({})).toEqual([['$.trigger.schedule', 'required']]);
      expect(schedule({ at: '2026-03-02 09:00' })).toEqual([['$.trigger.schedule.at', 'timestamp']]);
      expect(schedule({ every: 'PT5M' })).toEqual([['$.trigger.schedule.every', 'range']]);
      expect(schedule({ every: 'P1M' })).toEqual([]);
      expect(schedule({ every: 'daily' })).toEqual([['$.trigger.schedule.every', 'duration']]);
    });
  });

  describe('action', () => {
    it("is held to the action store's rules, with the store's rule names", () => {
      const bad = { ...action, render_method: 'fax', foo: 1, content: { title: 't' } };
      expect(messagesOf(minimal({ action: bad }))).toEqual([
        "$.action.render_method enum: Invalid enum value. Expected 'push_notification' | 'in_app_message' | 'generic_message', received 'fax'",
        '$.action.content.body required: Required',
        '$.action.foo unknown_field: unknown field',
      ]);
      expect(messagesOf(minimal({ action: { ...action, type: 'custom', content: { title: 't', body: 'b' } } }))).toEqual([
        "$.action.render_method type_render_method: type 'custom' allows render_method in_app_message, generic_message",
      ]);
    });

    it('leaves user_id, inv_id and action_id to the campaign', () => {
      expect(messagesOf(minimal({ action: { ...action, content: { title: 't', body: 'b' }, user_id: 'u', action_id: 7 } }))).toEqual([
        '$.action.user_id unknown_key: the campaign sets user_id: each user of its audience',
        '$.action.action_id unknown_key: the campaign sets action_id: one per variant',
      ]);
    });

    it('expires at an instant or after a duration, exactly one', () => {
      const base = { ...action, content: { title: 't', body: 'b' } };
      const { expires_after: _, ...noExpiry } = base;
      expect(problemsOf(minimal({ action: noExpiry }))).toEqual([['$.action.expired_at', 'required']]);
      expect(problemsOf(minimal({ action: { ...base, expired_at: '2026-04-01T00:00:00Z' } }))).toEqual([['$.action.expires_after', 'one_of']]);
      expect(problemsOf(minimal({ action: { ...noExpiry, expired_at: 'tomorrow' } }))).toEqual([['$.action.expired_at', 'invalid']]);
      expect(problemsOf(minimal({ action: { ...base, expires_after: 'P0D' } }))).toEqual([['$.action.expires_after', 'duration']]);
    });

    it('checks its templates against the trigger: no event unless the trigger is one', () => {
      expect(
        messagesOf(
          minimal({
            trigger: { segment_entry: 'seg-buyers' },
            action: { ...action, content: { title: 'Hi {{ user.name }}', body: '{{ event.item.id }} {% if x %}' } },
          }),
        ),
      ).toEqual(['$.action.content.body template_syntax: tag {% if x %} not closed, line:1, col:21']);
      expect(
        messagesOf(
          minimal({ trigger: { segment_entry: 'seg-buyers' }, action: { ...action, content: { title: 'Hi {{ user.nam }}', body: '{{ event.item.id }}' } } }),
        ),
      ).toEqual([
        expect.stringMatching(/^\$\.action\.content\.title unknown_variable: user\.nam \(line 1, column 7\): user\.nam is not a user variable/) as string,
        '$.action.content.body unknown_variable: event.item.id (line 1, column 4): event is set only when the trigger is an event: this campaign has no triggering event',
      ]);
    });
  });

  describe('variants', () => {
    it('merge over the action: reasons they bring are theirs, the action’s own are not repeated', () => {
      const variants = [
        { weight: 2, action: { type: 'custom' } },
        { weight: 1, action: { content: { title: '{{ user.nam }}' }, user_id: 'x' } },
        { weight: 1, action: { expired_at: '2026-04-01T00:00:00Z' } },
      ];
      expect(problemsOf(minimal({ variants }))).toEqual([
        ['$.variants[0].action.render_method', 'type_render_method'],
        ['$.variants[1].action.user_id', 'unknown_key'],
        ['$.variants[1].action.content.title', 'unknown_variable'],
      ]);
      const badTags = { ...action, content: { title: 't', body: 'b' }, tags: 'refill' };
      expect(
        problemsOf(
          minimal({
            action: badTags,
            variants: [
              { weight: 1, action: {} },
              { weight: 1, action: { tags: [''] } },
            ],
          }),
        ),
      ).toEqual([
        ['$.action.tags', 'type'],
        ['$.variants[1].action.tags[0]', 'min'],
      ]);
    });

    it("do not repeat the action's own key and expiry reasons", () => {
      const { expires_after: _, ...noExpiry } = { ...action, content: { title: 't', body: 'b' } };
      const variants = [
        { weight: 1, action: {} },
        { weight: 1, action: { expires_after: 'P1D', inv_id: 1 } },
      ];
      expect(problemsOf(minimal({ action: { ...noExpiry, user_id: 'u' }, variants }))).toEqual([
        ['$.action.user_id', 'unknown_key'],
        ['$.action.expired_at', 'required'],
        ['$.variants[1].action.inv_id', 'unknown_key'],
      ]);
    });

    it('have positive weights, 1 to 10 of them', () => {
      expect(problemsOf(minimal({ variants: [] }))).toEqual([['$.variants', 'min_items']]);
      expect(problemsOf(minimal({ variants: Array.from({ length: 11 }, () => ({ weight: 1, action: {} })) }))).toEqual([['$.variants', 'max_items']]);
      expect(problemsOf(minimal({ variants: [{ weight: 0, action: {} }, { action: {} }, { weight: '1', action: 'x' }, 3] }))).toEqual([
        ['$.variants[0].weight', 'range'],
        ['$.variants[1].weight', 'required'],
        ['$.variants[2].weight', 'type'],
        ['$.variants[2].action', 'type'],
        ['$.variants[3]', 'type'],
      ]);
    });
  });

  it('bounds holdout, caps and rate', () => {
    expect(messagesOf(minimal({ holdout: 1 }))).toEqual(['$.holdout range: must be a fraction from 0 up to (not including) 1, got 1']);
    expect(problemsOf(minimal({ holdout: '0.1' }))).toEqual([['$.holdout', 'type']]);
    expect(problemsOf(minimal({ caps: { per_user: { max: 0 }, ignore_app_cap: 'yes', per_app: 3 } }))).toEqual([
      ['$.caps.per_app', 'unknown_key'],
      ['$.caps.ignore_app_cap', 'type'],
      ['$.caps.per_user.max', 'range'],
      ['$.caps.per_user.within', 'required'],
    ]);
    expect(problemsOf(minimal({ caps: { per_user: { max: 2, within: 'P1W' }, ignore_app_cap: true } }))).toEqual([]);
    expect(problemsOf(minimal({ rate_per_second: 0 }))).toEqual([['$.rate_per_second', 'range']]);
    expect(problemsOf(minimal({ rate_per_second: 0.5 }))).toEqual([]);
    expect(problemsOf(minimal({ sample_size: 20_000 }))).toEqual([]);
    expect(problemsOf(minimal({ sample_size: 1 }))).toEqual([['$.sample_size', 'range']]);
    expect(problemsOf(minimal({ sample_size: 100.5 }))).toEqual([['$.sample_size', 'range']]);
    expect(problemsOf(minimal({ sample_size: '100' }))).toEqual([['$.sample_size', 'type']]);
    // adaptive: opt-in, needs a goal and two variants; floor at most 1/variants.
    expect(problemsOf(minimal({ adaptive: { floor: 0 } }))).toEqual([
      ['$.variants', 'required'],
      ['$.goal', 'required'],
      ['$.adaptive.floor', 'range'],
    ]);
    expect(problemsOf(minimal({ adaptive: true }))).toEqual([['$.adaptive', 'type']]);
    // A valid adaptive part is accepted (the worker runs it).
    expect(problemsOf({ ...valid, adaptive: { floor: 0.1 } })).toEqual([]);
    expect(problemsOf({ ...valid, adaptive: {} })).toEqual([]);
    // min_effect: an absolute uplift of the goal's rate, so it needs a goal.
    const goal = { event: 'checkout', within: 'P3D' };
    expect(problemsOf(minimal({ goal, min_effect: 0.01 }))).toEqual([]);
    expect(problemsOf(minimal({ goal, min_effect: 0 }))).toEqual([['$.min_effect', 'range']]);
    expect(problemsOf(minimal({ goal, min_effect: 1 }))).toEqual([['$.min_effect', 'range']]);
    expect(problemsOf(minimal({ goal, min_effect: '1%' }))).toEqual([['$.min_effect', 'type']]);
    expect(problemsOf(minimal({ min_effect: 0.01 }))).toEqual([['$.goal', 'required']]);
  });

  it('reads local times as HH:MM and refuses send_at_local inside quiet hours', () => {
    expect(problemsOf(minimal({ quiet_hours: { start: '9:00', end: '25:00' }, send_at_local: 9 }))).toEqual([
      ['$.send_at_local', 'type'],
      ['$.quiet_hours.start', 'local_time'],
      ['$.quiet_hours.end', 'local_time'],
    ]);
    expect(problemsOf(minimal({ quiet_hours: { start: '21:00', end: '21:00' } }))).toEqual([['$.quiet_hours.end', 'quiet_hours']]);
    expect(messagesOf(minimal({ quiet_hours: { start: '21:00', end: '08:00' }, send_at_local: '07:30' }))).toEqual([
      '$.send_at_local quiet_hours: 07:30 is inside quiet hours 21:00–08:00: no action would be sent then',
    ]);
    expect(problemsOf(minimal({ quiet_hours: { start: '12:00', end: '14:00' }, send_at_local: '13:00' }))).toEqual([['$.send_at_local', 'quiet_hours']]);
    expect(problemsOf(minimal({ quiet_hours: { start: '12:00', end: '14:00' }, send_at_local: '14:00' }))).toEqual([]);
  });

  it('takes a goal as an event condition with an attribution window and no count', () => {
    expect(problemsOf(minimal({ goal: { event: 'checkout', count: { gte: 2 } } }))).toEqual([
      ['$.goal.count', 'unsupported'],
      ['$.goal.within', 'required'],
    ]);
    expect(problemsOf(minimal({ goal: { event: 'checkout', within: { from: '2026-03-01T00:00:00Z', to: '2026-04-01T00:00:00Z' } } }))).toEqual([
      ['$.goal.within', 'type'],
    ]);
    expect(problemsOf(minimal({ goal: { event: 'checkout', where: [{ prop: 'is_successful', op: 'eq', value: 'yes' }], within: 'P3D' } }))).toEqual([
      ['$.goal.where[0].value', 'value_type'],
    ]);
  });

  it('takes a goal value: a numeric property of the goal’s event (inside an array of objects too)', () => {
    const goal = (value: unknown) => minimal({ goal: { event: 'checkout', within: 'P3D', value } });
    expect(problemsOf(goal('cart_price'))).toEqual([]);
    expect(problemsOf(goal('items[].price'))).toEqual([]);
    expect(problemsOf(goal('currency'))).toEqual([['$.goal.value', 'aggregate_type']]);
    expect(problemsOf(goal('nope'))).toEqual([['$.goal.value', expect.any(String)]]);
    expect(problemsOf(goal(3))).toEqual([['$.goal.value', 'type']]);
  });

  it('orders start_at before end_at', () => {
    expect(problemsOf(minimal({ start_at: '2026-04-01T00:00:00Z', end_at: '2026-03-01T00:00:00Z' }))).toEqual([['$.end_at', 'window_order']]);
    expect(problemsOf(minimal({ start_at: 'soon' }))).toEqual([['$.start_at', 'timestamp']]);
  });
});
