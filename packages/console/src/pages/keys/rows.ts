import type { KeyView } from '@evp/segmenter';

/** How long ago an instant was, as people say it: "42 s ago", "3 min ago", "5 h ago", "2 days ago". */
export function ago(iso: string, now: number): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} days ago`;
}

/** A row of the keys table: each cell's class and text (and title), and whether the key is revoked now. */
export interface KeyRow {
  revoked: boolean;
  cells: { cls: string; text: string; title?: string }[];
}

/** A key's state at `now` (bearer or token signing key): a revocation in the future is announced, not yet applied. */
export function keyState(revokedAt: string | null, now: number): { revoked: boolean; state: string } {
  const revoked = revokedAt !== null && Date.parse(revokedAt) <= now;
  return { revoked, state: revoked ? `revoked ${revokedAt}` : revokedAt ? `revokes at ${revokedAt}` : 'active' };
}

/** A key as the table shows it at `now`. */
export function keyRow(k: KeyView, now: number): KeyRow {
  const { revoked, state } = keyState(k.revoked_at, now);
  return {
    revoked,
    cells: [
      { cls: 'id', text: k.id },
      { cls: 'role', text: k.role },
      { cls: 'created', text: k.created_at ?? '—' },
      { cls: `state${revoked ? '' : ' active'}`, text: state },
      { cls: 'last-used', text: k.last_used_at ? ago(k.last_used_at, now) : 'never', title: k.last_used_at ?? '' },
    ],
  };
}
