import { CAMPAIGN_COMMANDS, CAMPAIGN_STATES, isEditable, isLive, transition } from './states';

describe('transition', () => {
  it('allows exactly these moves', () => {
    const table = Object.fromEntries(
      CAMPAIGN_STATES.map((s) => [s, Object.fromEntries(CAMPAIGN_COMMANDS.map((c) => [c, ((t) => (t.ok ? t.value.state : 'refused'))(transition(s, c))]))]),
    );
    expect(table).toEqual({
      draft: { resume: 'active', pause: 'refused', end: 'ended' },
      active: { resume: 'active', pause: 'paused', end: 'ended' },
      paused: { resume: 'active', pause: 'paused', end: 'ended' },
      ended: { resume: 'refused', pause: 'refused', end: 'ended' },
    });
  });

  it('says whether anything changed, and why a move is refused', () => {
    expect(transition('draft', 'resume')).toEqual({ ok: true, value: { state: 'active', changed: true } });
    expect(transition('active', 'resume')).toEqual({ ok: true, value: { state: 'active', changed: false } });
    expect(transition('ended', 'end')).toEqual({ ok: true, value: { state: 'ended', changed: false } });
    expect(transition('draft', 'pause')).toEqual({
      ok: false,
      reasons: [{ path: '$', rule: 'transition', message: 'cannot pause a campaign that is draft: a draft has not started: resume it first' }],
    });
    expect(transition('ended', 'resume')).toEqual({
      ok: false,
      reasons: [{ path: '$', rule: 'transition', message: 'cannot resume a campaign that is ended: an ended campaign stays ended' }],
    });
  });
});

describe('isEditable and isLive', () => {
  it('edits drafts and paused campaigns only', () => {
    expect(CAMPAIGN_STATES.filter(isEditable)).toEqual(['draft', 'paused']);
  });

  it('acts on triggers when active and inside [start_at, end_at)', () => {
    const window = { startMs: 1000, endMs: 2000 };
    expect([999, 1000, 1999, 2000].map((now) => isLive('active', window, now))).toEqual([false, true, true, false]);
    expect(isLive('paused', window, 1500)).toBe(false);
    expect(isLive('active', {}, 0)).toBe(true);
  });
});
