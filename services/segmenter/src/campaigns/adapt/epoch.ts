import type { Analytics, Logger } from '@evp/core';
import { DEFAULT_FLOOR, EPOCH_MS, nextEpoch } from '../bandit';
import { splitHistory, type CampaignSource, type SplitChange, type StoredCampaign } from '../source';
import { armCounts } from './arms';

/**
 * One adaptive campaign's step: when its current epoch is at least 12 h old (bandit/epochs.ts), its
 * variants' goal counts are read and, once every variant has 100 users, the next epoch's weights
 * (top-two Thompson, each at least the floor) are appended to its split history. The holdout is the
 * current epoch's: only the treated users' split between variants moves. Returns the appended epoch,
 * or null when it was not yet time, or when the campaign's split changed since `c` was read (another
 * replica appended an epoch, or an edit changed the split): then nothing is written and it is logged.
 */
export async function adaptCampaign(
  deps: { analytics: Analytics; campaigns: Pick<CampaignSource, 'appendSplit'>; logger: Logger },
  c: StoredCampaign,
  now: number,
): Promise<SplitChange | null> {
  const { adaptive, goal, variants } = c.document;
  if (!adaptive || !goal || !variants) return null;
  const current = splitHistory(c).at(-1) as SplitChange;
  // Not yet time: no query (the timer runs far more often than epochs turn).
  if (now - current.from < EPOCH_MS) return null;
  const arms = await armCounts(deps.analytics, { app_id: c.app_id, id: c.id, goal, variants: variants.length }, now);
  const next = nextEpoch(current, now, arms, { floor: adaptive.floor ?? DEFAULT_FLOOR });
  if (!next) return null;
  const split: SplitChange = { from: next.from, holdout: current.holdout, weights: next.weights, adaptive: true };
  if (await deps.campaigns.appendSplit(c, split)) return split;
  deps.logger.warn(
    { app_id: c.app_id, campaign_id: c.id, computed_from: current.from },
    'adaptive epoch not appended: the campaign’s split changed since it was read (another replica appended an epoch, or an edit changed the split)',
  );
  return null;
}
