import { generatorPulls, olderSdkPulls, parseGeneratorFetch, parseOlderSdkFetch, queuedMicros, toOlderSdkNudge } from './nudge-fetch';
import type { ActionRecord } from './model';

const dims = (qs: { delivery_mode: string; type: string; render_method: string }[]) => qs.map((q) => `${q.delivery_mode}:${q.type}:${q.render_method}`);

describe('older clients’ fetches → store pulls', () => {
  it('covers the render methods asked for, every type that allows them, one-off first', () => {
    const push = parseOlderSdkFetch('u1', { render_method: 'push_notification' });
    expect(push.ok && dims(olderSdkPulls(push.value))).toEqual(['one-off:message:push_notification', 'cached:message:push_notification']);
    const all = parseOlderSdkFetch('u1', {});
    expect(all.ok && dims(olderSdkPulls(all.value))).toEqual([
      'one-off:message:push_notification',
      'one-off:message:in_app_message',
      'one-off:custom:in_app_message',
      'cached:message:push_notification',
      'cached:message:in_app_message',
      'cached:custom:in_app_message',
    ]);
    const gen = parseGeneratorFetch({ subject_id: 'u1' });
    expect(gen.ok && generatorPulls(gen.value).length).toBe(10);
  });

  it('reads render_page as an attr filter, and an empty one as none', () => {
    expect(parseOlderSdkFetch('u1', { render_method: 'in_app_message', render_page: 'cart' })).toEqual({
      ok: true,
      value: { user_id: 'u1', render_methods: ['in_app_message'], attr: { render_page: 'cart' } },
    });
    expect(parseOlderSdkFetch('u1', { render_method: 'in_app_message', render_page: '' })).toEqual({
      ok: true,
      value: { user_id: 'u1', render_methods: ['in_app_message'] },
    });
  });

  it("reads the generator's queued_at (microseconds, literal Z)", () => {
    const r = parseGeneratorFetch({ subject_id: 'u1', queued_at: '2025-03-04T10:02:11.504118Z' });
    expect(r.ok && Math.round(r.value.queued_after! * 1000)).toBe(queuedMicros('2025-03-04T10:02:11.504118Z'));
    expect(queuedMicros('2025-03-04T10:02:11.504118Z')).toBe(Date.UTC(2025, 2, 4, 10, 2, 11) * 1000 + 504118);
  });
});

describe('toOlderSdkNudge', () => {
  const record = (expired_at: string): ActionRecord => ({
    user_id: 'u1',
    payload: {
      type: 'custom',
      render_method: 'in_app_message',
      delivery_mode: 'cached',
      content: { title: 'T', body: '<b>B</b>' },
      attr: { render_page: 'cart' },
      tags: ['a'],
      internal: { inv_id: 3, action_id: 7, expired_at, ref: '3:7', ref_time: '2030-01-01T12:00:00.250125Z#3:7' },
    },
    error: null,
    queued_at: '2030-01-01T12:00:00.250125Z',
  });

  it('gives expire_at in whole UTC seconds, and the zero time (any spelling) for never', () => {
    expect(toOlderSdkNudge(record('2030-02-01T05:30:59.999+05:30'))).toEqual({
      ref: '3:7',
      time: '2030-01-01T12:00:00.250125Z',
      expire_at: '2030-02-01T00:00:59Z',
      nd: { type: 'custom', message: { title: 'T', body: '<b>B</b>', tags: ['a'] }, render_method: 'in_app_message' },
    });
    expect(toOlderSdkNudge(record('0001-01-01T00:00:00+00:00')).expire_at).toBe('0001-01-01T00:00:00Z');
  });
});
