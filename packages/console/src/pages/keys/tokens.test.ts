import { OUTCOMES, policySentence, refusedCount, tokenKeyCells } from './tokens';

const counts = { valid: 3, anonymous: 4, required: 2, invalid: 0, expired: 1, mismatch: 0 };

describe('the Keys page’s user token section', () => {
  it('shows every outcome the API answers, once, and counts the four enforce refuses', () => {
    expect(OUTCOMES.map((o) => o.outcome).sort()).toEqual(Object.keys(counts).sort());
    expect(refusedCount(counts)).toBe(3);
  });

  it('says what the counts mean under each policy', () => {
    expect(policySentence({ policy: 'report', last_hour: counts })).toBe('Policy report: 3 calls would have been refused under enforce in the last hour.');
    expect(policySentence({ policy: 'report', last_hour: { ...counts, required: 0, expired: 1 } })).toBe(
      'Policy report: 1 call would have been refused under enforce in the last hour.',
    );
    expect(policySentence({ policy: 'enforce', last_hour: counts })).toBe('Policy enforce: 3 calls refused in the last hour.');
    expect(policySentence({ policy: 'off', last_hour: counts })).toMatch(/^Policy off: no user token is checked/);
  });

  it('shows a signing key active, revoking later, or revoked', () => {
    const now = Date.parse('2026-11-28T10:00:00Z');
    const key = { id: 'kid-1', alg: 'HS256', created_at: null, revoked_at: null };
    expect(tokenKeyCells(key, now)).toEqual(['kid-1', 'HS256', '—', 'active']);
    expect(tokenKeyCells({ ...key, revoked_at: '2026-11-28T11:00:00Z' }, now)[3]).toBe('revokes at 2026-11-28T11:00:00Z');
    expect(tokenKeyCells({ ...key, created_at: '2026-11-01T00:00:00Z', revoked_at: '2026-11-28T09:00:00Z' }, now)).toEqual([
      'kid-1',
      'HS256',
      '2026-11-01T00:00:00Z',
      'revoked 2026-11-28T09:00:00Z',
    ]);
  });
});
