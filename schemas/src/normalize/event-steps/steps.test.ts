import { checkSize } from '../normalize';
import type { EnvelopeFacts, RawEvent } from '../types';
import { buildEvent } from './build';
import { checkBlock } from './declared-block';
import { draftOf, type EventDraft } from './draft';
import { gateQuirks } from './gate';
import { resolveName } from './name';
import { EVENT_STEPS, toCanonical } from './pipeline';
import { adaptCtx, validateProps } from './props';
import { readTime } from './time';

/** One test per step of pipeline.ts, each on a draft as the steps before it leave it. */
const ctx = { appId: 'app-1', requestId: 'req-1', receivedAt: 1_700_000_100_000, keyId: 'k-sdk' };
const facts = (over: Partial<EnvelopeFacts> = {}): EnvelopeFacts => ({
  form: 'earlier',
  userId: 'user-7',
  sessionId: 'user-7_1700000000000_0',
  sessionStart: 1_700_000_000_000,
  sessionEnd: null,
  deviceId: 'dev-7',
  os: 'android',
  sdkName: 'android',
  sdkVersion: '2.0.0',
  appVersion: '1.2.3',
  appVersionCode: 45,
  tz: '',
  client: { brand: 'Acme' },
  line: null,
  lineVersion: [],
  warnings: [],
  ...over,
});
const raw = (over: Partial<RawEvent> = {}): RawEvent => ({
  name: 'page',
  time: '2023-11-15T03:43:20.123+05:30',
  online: true,
  property: null,
  props: { path: '/cart', title: 'Cart', duration: 3, render_time: 20 },
  meta: null,
  declaredBlock: 'core',
  extra: {},
  ...over,
});
const sent = { sentAt: null };
const draft = (r: Partial<RawEvent> = {}, f: Partial<EnvelopeFacts> = {}, readErrors = []): EventDraft =>
  draftOf(raw(r), facts(f), sent, ctx, '$.data[0]', readErrors);
/** A draft after the steps before `step`. */
const upTo = (step: (d: EventDraft) => boolean, d: EventDraft): EventDraft => {
  for (const s of EVENT_STEPS) {
    if (s === step) return d;
    s(d);
  }
  return d;
};
const rules = (list: readonly { rule: string }[]) => list.map((r) => r.rule);

describe('the event steps', () => {
  it('are listed in the order the docs name them', () => {
    expect(EVENT_STEPS.map((s) => s.name)).toEqual(['resolveName', 'checkBlock', 'readTime', 'adaptCtx', 'validateProps', 'gateQuirks']);
  });

  it('checkSize (before the steps): an event over the limit, exactly measured, or nested too deep', () => {
    const props = raw().props;
    const chars = JSON.stringify(props).length;
    expect(checkSize(props, '$.data[0]', chars)).toBeNull();
    expect(checkSize(props, '$.data[0]', chars - 1)).toEqual({
      reason: { path: '$.data[0]', rule: 'max_size', message: `event is ${chars} characters; the limit is ${chars - 1}` },
      payload: props,
    });
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = { d: deep };
    expect(checkSize({ a: deep }, '$.data[0]', 100)).toEqual({
      reason: expect.objectContaining({ rule: 'max_depth' }),
      payload: { a: '[nested too deep]' },
    });
  });

  it('resolveName: the definition, a client alias as a quirk, an unknown name as the end', () => {
    const d = draft({ name: 'identity', props: { action: 'login' }, declaredBlock: 'core' });
    expect(resolveName(d)).toBe(true);
    expect(d.def?.event).toBe('identify');
    expect([d.namePath, d.propsPath]).toEqual(['$.data[0].type', '$.data[0].props']);
    expect(rules(d.quirks)).toEqual(['event_alias']);
    const unknown = draft({ name: 'nope' }, {}, [{ path: '$.data[0].ol', rule: 'type', message: 'm' }] as never);
    expect(resolveName(unknown)).toBe(false);
    expect(unknown.reasons).toEqual([
      { path: '$.data[0].ol', rule: 'type', message: 'm' },
      { path: '$.data[0].type', rule: 'unknown_event', message: 'nope is not a known event type' },
    ]);
  });

  it('checkBlock: the declared block against the type’s: an app’s block as a quirk, another as an error', () => {
    const ok = upTo(checkBlock, draft());
    expect(checkBlock(ok)).toBe(true);
    expect([ok.reasons, ok.quirks]).toEqual([[], []]);
    const app = upTo(checkBlock, draft({ declaredBlock: 'payment' }));
    expect(checkBlock(app)).toBe(true);
    expect([rules(app.reasons), rules(app.quirks)]).toEqual([[], ['block_of_app']]);
    const wrong = upTo(checkBlock, draft({ declaredBlock: 'nowhere' }));
    expect(checkBlock(wrong)).toBe(true);
    expect([rules(wrong.reasons), rules(wrong.quirks)]).toEqual([['block_mismatch'], []]);
  });

  it('readTime: epoch ms, an unreadable time as time_format, sub-millisecond digits as a quirk', () => {
    const d = upTo(readTime, draft());
    readTime(d);
    expect(d.time).toBe(Date.UTC(2023, 10, 14, 22, 13, 20, 123));
    const bad = upTo(readTime, draft({ time: 'garbage' }));
    readTime(bad);
    expect([bad.time, rules(bad.reasons)]).toEqual([undefined, ['time_format']]);
    const fine = upTo(readTime, draft({ time: '2023-11-15T03:43:20.1234+05:30' }));
    readTime(fine);
    expect(rules(fine.quirks)).toEqual(['time_precision']);
  });

  it('adaptCtx: only current-form events are adapted', () => {
    const earlier = upTo(adaptCtx, draft());
    adaptCtx(earlier);
    expect(earlier.adapted).toBeUndefined();
    const current = upTo(adaptCtx, draft({ time: '2023-11-15 03:43:20.123', declaredBlock: null }, { form: 'current', tz: '+05:30' }));
    adaptCtx(current);
    expect(current.adapted?.props).toEqual(raw().props);
  });

  it('validateProps: the definition’s errors join the event’s reasons', () => {
    const d = upTo(validateProps, draft({ props: { path: '/cart', title: 3, duration: 3, render_time: 20 } }));
    validateProps(d);
    expect(d.reasons).toEqual([expect.objectContaining({ path: '$.data[0].props.title', rule: 'type' })]);
    expect(d.validated?.value).toEqual({ path: '/cart', duration: 3, render_time: 20 });
  });

  it('gateQuirks: a quirk from a client its gate does not name is the spec’s rule, and ends the event', () => {
    const other = upTo(gateQuirks, draft({ name: 'identity', props: { action: 'login' } }));
    expect(gateQuirks(other)).toBe(false);
    expect(rules(other.reasons)).toEqual(['unknown_event']);
    const cf = upTo(gateQuirks, draft({ name: 'identity', props: { action: 'login' } }, { line: 'ios-cf', lineVersion: [1, 1, 8] }));
    expect(gateQuirks(cf)).toBe(true);
    expect(rules(cf.warnings)).toEqual(['event_alias']);
  });

  it('buildEvent: the canonical event of a draft every check passed', () => {
    const d = draft({ props: { ...raw().props, zz: 1 }, extra: { x: 1 } });
    for (const s of EVENT_STEPS) expect(s(d)).toBe(true);
    const e = buildEvent(d);
    expect(e).toMatchObject({
      name: 'page',
      block: 'core',
      sent_name: null,
      time: Date.UTC(2023, 10, 14, 22, 13, 20, 123),
      props: { path: '/cart', title: 'Cart', duration: 3, render_time: 20, __extra: { zz: 1 } },
      client: { brand: 'Acme', event_extra: { x: 1 } },
      warnings: [expect.objectContaining({ rule: 'unknown_property' })],
    });
    expect(e.event_id).toMatch(/^[0-9a-f]{32}$/);
    expect(toCanonical(d.raw, d.facts, sent, ctx, '$.data[0]', [])).toEqual({ event: e });
  });
});
