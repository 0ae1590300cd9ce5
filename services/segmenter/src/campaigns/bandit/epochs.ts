import type { Proportion } from '../stats';
import { topTwoShares, withFloor } from './thompson';

/**
 * When an adaptive campaign may move its weights: at most once per epoch (12 h, so a day's rhythm
 * and a burst of traffic do not whip the split around) and only once every variant has the minimum
 * number of users (before that the posterior is mostly prior and the move would be noise).
 */

export const EPOCH_MS = 12 * 60 * 60 * 1000;
export const MIN_USERS_PER_VARIANT = 100;
export const DEFAULT_FLOOR = 0.05;

export interface Epoch {
  /** Epoch start, ms since 1970. */
  from: number;
  /** Treated weights of the variants in this epoch (sum 1). */
  weights: number[];
}

interface BanditSettings {
  floor: number;
  draws?: number;
  seed?: number;
}

/**
 * The next epoch, or null when it is not yet time: less than EPOCH_MS since the current epoch began,
 * or a variant with fewer than MIN_USERS_PER_VARIANT users. `arms`: each variant's counts so far.
 */
export function nextEpoch(current: Epoch, now: number, arms: readonly Proportion[], settings: BanditSettings): Epoch | null {
  if (now - current.from < EPOCH_MS) return null;
  if (arms.length < 2 || arms.some((a) => a.audience < MIN_USERS_PER_VARIANT)) return null;
  return { from: now, weights: withFloor(topTwoShares(arms, settings.draws, settings.seed), settings.floor) };
}

/** The first epoch: equal weights, from the campaign's start. */
export function firstEpoch(variants: number, from: number): Epoch {
  return { from, weights: new Array<number>(variants).fill(1 / variants) };
}

/** Index of the epoch holding `at` (epochs sorted by `from`); 0 before the first. */
export function epochAt(epochs: readonly Epoch[], at: number): number {
  let found = 0;
  for (let e = 0; e < epochs.length; e++) if ((epochs[e] as Epoch).from <= at) found = e;
  return found;
}
