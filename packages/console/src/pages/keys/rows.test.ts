import { ago, keyRow } from './rows';

describe('the Keys page’s rows', () => {
  const now = Date.parse('2026-11-28T10:00:00Z');

  it('says how long ago, in the largest whole unit', () => {
    const before = (s: number) => new Date(now - s * 1000).toISOString();
    expect([ago(before(0), now), ago(before(59), now), ago(before(60), now), ago(before(7199), now), ago(before(86400 * 3), now)]).toEqual([
      '0 s ago',
      '59 s ago',
      '1 min ago',
      '1 h ago',
      '3 days ago',
    ]);
    expect(ago(new Date(now + 5000).toISOString(), now)).toBe('0 s ago');
  });

  it('shows a key revoked, revoking later, or active, and never-used keys as such', () => {
    const key = { id: 'k', role: 'sdk', created_at: null, revoked_at: null, last_used_at: null };
    expect(keyRow(key, now)).toEqual({
      revoked: false,
      cells: [
        { cls: 'id', text: 'k' },
        { cls: 'role', text: 'sdk' },
        { cls: 'created', text: '—' },
        { cls: 'state active', text: 'active' },
        { cls: 'last-used', text: 'never', title: '' },
      ],
    });
    const revoked = keyRow({ ...key, revoked_at: '2026-11-28T09:00:00Z', last_used_at: '2026-11-28T08:59:00Z' }, now);
    expect([revoked.revoked, revoked.cells[3], revoked.cells[4]]).toEqual([
      true,
      { cls: 'state', text: 'revoked 2026-11-28T09:00:00Z' },
      { cls: 'last-used', text: '1 h ago', title: '2026-11-28T08:59:00Z' },
    ]);
    expect(keyRow({ ...key, revoked_at: '2026-11-29T00:00:00Z' }, now).cells[3]).toEqual({ cls: 'state active', text: 'revokes at 2026-11-29T00:00:00Z' });
  });
});
