/**
 * The outcomes of a user-scoped SDK-key call's token, as counted in `user_tokens_total` and by the
 * count store: `valid` and `anonymous` (an `anon:` id, which needs no token) pass; the others are
 * what `enforce` refuses (user_token_required, _invalid, _expired, _mismatch).
 */
export const USER_TOKEN_OUTCOMES = ['valid', 'anonymous', 'required', 'invalid', 'expired', 'mismatch'] as const;
export type UserTokenOutcome = (typeof USER_TOKEN_OUTCOMES)[number];

/** One minute's count of one outcome of one app, as a replica adds it. */
export interface UserTokenCount {
  appId: string;
  outcome: UserTokenOutcome;
  /** Epoch ms of the minute's start (a multiple of 60 000). */
  minute: number;
  count: number;
}

/** Outcome → calls; every outcome present (0 when none). */
export type UserTokenOutcomeCounts = Record<UserTokenOutcome, number>;

/** How long the store keeps a minute's counts, and the span a read sums: one hour. */
export const USER_TOKEN_COUNTS_SPAN_MS = 60 * 60_000;

/**
 * Where every replica of the gateway and the action store adds its per-minute counts of user token
 * outcomes, and the segmenter's API reads the last hour of an app. Writes add (replicas flush in any
 * order); a minute is kept one hour, then forgotten.
 */
export interface UserTokenCountStore {
  add(counts: readonly UserTokenCount[]): Promise<void>;
  /** The sums over the 60 minutes whose start is within the hour before `now` (the current minute included). */
  lastHour(appId: string, now: number): Promise<UserTokenOutcomeCounts>;
  close(): Promise<void>;
}
