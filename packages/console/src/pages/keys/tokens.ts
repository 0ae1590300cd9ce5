import type { UserTokenKeyView, UserTokensAnswer } from '@evp/segmenter';
import { keyState } from './rows';

type Outcome = keyof UserTokensAnswer['last_hour'];

/**
 * The outcomes in the order the chart and table show them: the two that pass, then the four that
 * enforce refuses, each with the label people read (the error code for a refusal).
 */
export const OUTCOMES: readonly { outcome: Outcome; label: string; refused: boolean }[] = [
  { outcome: 'valid', label: 'valid', refused: false },
  { outcome: 'anonymous', label: 'anonymous (anon: id)', refused: false },
  { outcome: 'required', label: 'missing (user_token_required)', refused: true },
  { outcome: 'invalid', label: 'invalid (user_token_invalid)', refused: true },
  { outcome: 'expired', label: 'expired (user_token_expired)', refused: true },
  { outcome: 'mismatch', label: 'another user (user_token_mismatch)', refused: true },
];

const calls = (n: number) => `${n} call${n === 1 ? '' : 's'}`;

/** Calls of the last hour that enforce refuses (or refused). */
export function refusedCount(counts: UserTokensAnswer['last_hour']): number {
  return OUTCOMES.filter((o) => o.refused).reduce((n, o) => n + counts[o.outcome], 0);
}

/** What the counts mean under the app's policy: the sentence above the chart. */
export function policySentence(a: Pick<UserTokensAnswer, 'policy' | 'last_hour'>): string {
  const refused = refusedCount(a.last_hour);
  if (a.policy === 'off') return 'Policy off: no user token is checked, so nothing is counted. Switch the app to report to see what enforce would refuse.';
  if (a.policy === 'report') return `Policy report: ${calls(refused)} would have been refused under enforce in the last hour.`;
  return `Policy enforce: ${calls(refused)} refused in the last hour.`;
}

/** A token signing key's cells: kid, alg, created, state (a revocation in the future is announced). */
export function tokenKeyCells(k: UserTokenKeyView, now: number): string[] {
  return [k.id, k.alg, k.created_at ?? '—', keyState(k.revoked_at, now).state];
}
