/**
 * Anonymous visitors' user ids (before identify) carry this prefix; no signed-in user's id may. Under
 * `enforce` their events and pulls need no user token (docs/keys.md, "Anonymous visitors"): an app's
 * server cannot sign for a visitor it does not know, and the prefix keeps the exemption from
 * reaching any signed-in user, whose id never has it.
 */
export const ANONYMOUS_USER_PREFIX = 'anon:';

export const isAnonymousUserId = (userId: string): boolean => userId.startsWith(ANONYMOUS_USER_PREFIX);

/** The app policies under which the gateway checks tokens and tells the validator (`off` sends nothing). */
export type CheckedUserTokenPolicy = 'report' | 'enforce';
/** Why an upload has no verified user: none sent, or one refused (under report; enforce answers 401). */
export type UserTokenProblem = 'required' | 'invalid' | 'expired';

/** What the gateway verified of an upload's user token, for the validator's per-event rule. */
export interface RawUserToken {
  policy: CheckedUserTokenPolicy;
  /** The verified token's sub; absent when `problem` says why there is none. */
  sub?: string;
  problem?: UserTokenProblem;
}
