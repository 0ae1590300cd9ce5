import { assign, type Assignment } from '../assignment';
import type { Epoch } from './epochs';

/**
 * Assignment of an adaptive campaign. The holdout hash (fixed share, never adapted) decides control
 * vs treated exactly as for any campaign; within treated, the variant hash is laid over the weights
 * of the epoch in which the user was FIRST assigned, so moving weights later never moves anyone
 * already in a variant. `first`: that epoch's index when recorded, else the current one (and the
 * caller records it).
 */
export function assignAdaptive(campaignId: string, userId: string, holdout: number, epochs: readonly Epoch[], first: number): Assignment {
  const epoch = epochs[Math.min(first, epochs.length - 1)] as Epoch;
  return assign(campaignId, userId, { holdout, weights: epoch.weights });
}
