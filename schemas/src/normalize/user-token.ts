import { isAnonymousUserId, type IngestContext, type RawUserToken } from '@evp/contract';
import type { Reason } from '../rules/registry';

/**
 * The user token rule of one event (docs/keys.md, "User tokens"), from what the gateway verified: an
 * anonymous visitor's event (an `anon:` id) and an event of the token's own user pass (null); any
 * other is refused under enforce (`user_token_mismatch` with a token of another user,
 * `user_token_missing` without one) and marked under report (`user_token_unverified`, a warning).
 * `reject` says which.
 */
export function userTokenVerdict(token: RawUserToken, userId: string, path: string): { reason: Reason; reject: boolean } | null {
  if (isAnonymousUserId(userId) || (token.sub !== undefined && token.sub === userId)) return null;
  const why = token.sub !== undefined ? 'the upload’s user token is another user’s' : `the upload has no valid user token (${token.problem ?? 'required'})`;
  if (token.policy === 'report') {
    return {
      reject: false,
      reason: { path, rule: 'user_token_unverified', message: `${why}; the app's policy is report, so the event is kept (enforce would reject it)` },
    };
  }
  return token.sub !== undefined
    ? { reject: true, reason: { path, rule: 'user_token_mismatch', message: `${why}: an event of user ${JSON.stringify(userId)} needs that user's token` } }
    : { reject: true, reason: { path, rule: 'user_token_missing', message: `${why}: an identified user's event needs that user's token` } };
}

/**
 * A catalog record made from an upload, under the same rule: a `user` record is that person's
 * profile, as their events are theirs, so its `id` needs the token of that user. Other kinds describe
 * no app user. Returns the record's reasons to reject with, or the warning to add, or null.
 */
export function userRecordVerdict(ctx: IngestContext, kind: string, id: string, path: string): { reason: Reason; reject: boolean } | null {
  return ctx.userToken === undefined || kind !== 'user' ? null : userTokenVerdict(ctx.userToken, id, `${path}.id`);
}
