import { feedbackVerdict, type FeedbackResult } from './feedback-load';

describe('feedbackVerdict (fault scenarios a and k)', () => {
  const clean: FeedbackResult = { sent: 84, acked: 80, counted: 80, lost: 0, twice: 0, unackedCounted: 1, unacked: 4, ranOut: false };

  it('passes when every acknowledged response was counted once, whatever became of the unacknowledged', () => {
    expect(feedbackVerdict(clean)).toEqual({
      note: 'feedback: 84 nudge responses sent, 80 acknowledged, 80 counted once, 0 lost, 0 counted twice; 1 of 4 unacknowledged counted',
      failures: [],
    });
  });

  it('fails on an acknowledged response lost or unread, on one counted twice, and when none was acknowledged', () => {
    expect(feedbackVerdict({ ...clean, counted: 77, lost: 2, twice: 1 }).failures).toEqual([
      '3 acknowledged nudge responses not counted once by the action store (2 never)',
      '1 nudge responses counted twice',
    ]);
    expect(feedbackVerdict({ ...clean, acked: 0, counted: 0, unacked: 84 }).failures).toEqual(['no nudge response was acknowledged']);
  });

  it('notes a run that sent all its actions before the load stopped', () => {
    expect(feedbackVerdict({ ...clean, sent: 400, ranOut: true }).note).toMatch(/unacknowledged counted \(all 400 sent before the load stopped\)$/);
  });
});
