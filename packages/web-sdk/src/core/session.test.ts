import { Sessions, sessionId } from './session';
import { memoryShared, T0 } from './testing/fakes';

const MIN = 60_000;

describe('sessions', () => {
  it('continues while active, starts anew after 30 minutes idle', () => {
    const s = new Sessions(memoryShared(), 's');
    expect(s.touch('u1', T0).start).toBe(T0);
    expect(s.touch('u1', T0 + 29 * MIN).start).toBe(T0);
    // 30 min after the last activity (not after the start) is still the same session; past it, not.
    expect(s.touch('u1', T0 + 59 * MIN).start).toBe(T0);
    expect(s.touch('u1', T0 + 89 * MIN + 1).start).toBe(T0 + 89 * MIN + 1);
  });

  it('lasts at most 24 hours even when always active', () => {
    const s = new Sessions(memoryShared(), 's');
    let t = T0;
    s.touch('u1', t);
    // An event every 20 minutes: the same session up to exactly 24 h after its start…
    while (t < T0 + 24 * 60 * MIN) {
      t += 20 * MIN;
      expect(s.touch('u1', t).start).toBe(T0);
    }
    // …and a new one at the next event.
    expect(s.touch('u1', t + 20 * MIN).start).toBe(t + 20 * MIN);
  });

  it('starts a new session when the user changes', () => {
    const s = new Sessions(memoryShared(), 's');
    s.touch('anon', T0);
    expect(s.touch('alice', T0 + 1000)).toEqual({ user: 'alice', start: T0 + 1000, last: T0 + 1000 });
    expect(s.touch('anon', T0 + 2000).start).toBe(T0 + 2000);
  });

  it('is one session for every tab sharing the store', () => {
    const shared = memoryShared();
    const tab1 = new Sessions(shared, 's');
    const tab2 = new Sessions(shared, 's');
    tab1.touch('u1', T0);
    expect(tab2.touch('u1', T0 + 10 * MIN).start).toBe(T0);
    // Activity in tab 2 keeps tab 1's session alive: 35 min after tab 1's last event, 25 after tab 2's.
    expect(tab1.touch('u1', T0 + 35 * MIN).start).toBe(T0);
  });

  it('shapes s_id as <user>_<start>_<end>', () => {
    expect(sessionId('u_1', 1700000000000, 0)).toBe('u_1_1700000000000_0');
  });
});
