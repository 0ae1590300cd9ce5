import { errorMessage, type Analytics, type AppRetention, type Logger } from '@evp/core';
import { expireEndedMemberships } from './expire-ended';

export interface MembershipExpiryDeps {
  analytics: Analytics;
  /** The apps to look at: every app of the keys file, as the ring holds it after its latest reload. */
  apps: () => readonly string[];
  /** Each app's retention (the ring's; a changed keys file applies from the next round). */
  retention: (appId: string) => AppRetention;
  logger: Logger;
  /** The instant the days count back from. */
  now: () => number;
}

/**
 * One round of the expiry of ended memberships (docs/privacy.md, "Segment memberships"): for each
 * app whose `history` retention is not forever, every (segment, user) key that ended more than
 * that many days ago is deleted (expire-ended.ts). An app that fails is logged and tried again at
 * the next round; the others go on. The engine runs it every `expiryIntervalMs` (engine.ts).
 */
export async function expireMembershipsRound(deps: MembershipExpiryDeps): Promise<void> {
  for (const appId of deps.apps()) {
    const days = deps.retention(appId).history;
    if (days === 0) continue;
    try {
      const done = await expireEndedMemberships(deps.analytics, appId, days, deps.now());
      if (done.keys > 0) deps.logger.info({ app_id: appId, days, ...done }, 'deleted ended memberships past their retention');
    } catch (err) {
      deps.logger.warn({ err, app_id: appId }, `expiry of ended memberships failed (tried again next round): ${errorMessage(err)}`);
    }
  }
}
