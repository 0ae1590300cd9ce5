import { actionRequestMessage, feedbackFromEvent } from './messages';
import { parseRef, recordId } from './records';

describe('feedbackFromEvent', () => {
  const event = (name: string, props: Record<string, unknown>) => ({ app_id: 'app-1', user_id: 'u1', name, props });

  it('turns a nudge_response into feedback on the referenced action', () => {
    expect(feedbackFromEvent(event('nudge_response', { ref: '12:34', time: 'x', response: 'error', details: 'render failed' }))).toEqual({
      kind: 'feedback',
      appId: 'app-1',
      feedback: { user_id: 'u1', inv_id: 12, action_id: 34, response: 'error', details: 'render failed' },
    });
    expect(feedbackFromEvent(event('action_response', { ref: '1:2', response: 'open' }))).toEqual({
      kind: 'feedback',
      appId: 'app-1',
      feedback: { user_id: 'u1', inv_id: 1, action_id: 2, response: 'open' },
    });
  });

  it('ignores other events, marks a ref of another shape unknown (a nudge the platform never issued) and malformed ones invalid', () => {
    expect(feedbackFromEvent(event('page', { ref: '1:2', response: 'open' }))).toEqual({ kind: 'ignored' });
    expect(feedbackFromEvent(event('nudge_response', { ref: 'abc', response: 'open' }))).toEqual({ kind: 'unknown', ref: 'abc' });
    // The generator's invented nudge ids, as the validator stores them (type_coerced, number_precision).
    expect(feedbackFromEvent(event('nudge_response', { ref: '-4611686018427388000', response: 'open' }))).toEqual({
      kind: 'unknown',
      ref: '-4611686018427388000',
    });
    expect(feedbackFromEvent(event('nudge_response', { ref: 7, response: 'open' }))).toEqual({ kind: 'invalid', reason: 'ref 7 is not a string' });
    expect(feedbackFromEvent(event('nudge_response', { ref: '1:2', response: 'clicked' }))).toEqual({
      kind: 'invalid',
      reason: 'response "clicked" is not one of shown, open, discard, block, expired, error',
    });
  });
});

describe('ids and refs', () => {
  it('builds record ids and parses refs', () => {
    expect(recordId(1, 2, 'a:b')).toBe('1:2:a:b');
    expect(parseRef('2147483648:7')).toEqual({ inv_id: 2147483648, action_id: 7 });
    expect(parseRef('1:2:3')).toBeUndefined();
    expect(parseRef('')).toBeUndefined();
  });

  it('frames an actions.requested message with the app as key and header', () => {
    const a = {
      user_id: 'u',
      type: 'message' as const,
      render_method: 'push_notification' as const,
      delivery_mode: 'one-off' as const,
      content: { title: 't', body: 'b' },
      attr: {},
      tags: [],
      expired_at: '0001-01-01T00:00:00Z',
      inv_id: 1,
      action_id: 2,
    };
    const m = actionRequestMessage('app-1', [a]);
    expect([m.key, m.headers, JSON.parse(m.value.toString())]).toEqual(['app-1', { app_id: 'app-1' }, { app_id: 'app-1', actions: [a] }]);
    const withSource = actionRequestMessage('app-1', [a], { source: 'campaign:42' });
    expect(JSON.parse(withSource.value.toString())).toEqual({ app_id: 'app-1', source: 'campaign:42', actions: [a] });
  });
});
