import { strata, stratifiedWald, zFor, type Interval, type Proportion, type Stratum } from '../stats';

/**
 * The epoch-weighted uplift of an adaptive campaign: Σₑ (Nₑ/N)·Δₑ, Δₑ the variant-minus-control
 * difference among the users first assigned in epoch e, Nₑ those users (all groups). Pooling all
 * epochs instead is biased when base rates drift: the variant's share grows in some epochs and not
 * control's, so the pooled variant rate over-weights those epochs. Within an epoch the split is
 * fixed, so Δₑ is an ordinary randomized comparison; the weighted sum of independent epochs has
 * variance Σₑ (Nₑ/N)²·Var(Δₑ) (Wald per epoch). Epochs where either group is empty are skipped and
 * their weight given to the others. The report's readings of an adaptive campaign are all read on
 * these strata (stats/stratified.ts).
 */

interface EpochCounts {
  control: Proportion;
  variant: Proportion;
  /** Users first assigned in the epoch, every group. */
  users: number;
}

export interface EpochWeighted {
  method: 'epoch_weighted';
  estimate: number | null;
  ci: Interval | null;
  epochs: number;
}

export function epochWeighted(epochs: readonly EpochCounts[], confidence = 0.95): EpochWeighted {
  return epochWeightedOf(
    strata(epochs, (g) => g.audience),
    confidence,
  );
}

/** The same from the epochs already kept and weighted (stats/stratified.ts `strata`). */
export function epochWeightedOf(s: readonly Stratum[], confidence = 0.95): EpochWeighted {
  if (s.length === 0) return { method: 'epoch_weighted', estimate: null, ci: null, epochs: 0 };
  const { centre: estimate, variance } = stratifiedWald(s);
  const half = zFor(confidence) * Math.sqrt(variance);
  return { method: 'epoch_weighted', estimate, ci: [estimate - half, estimate + half], epochs: s.length };
}
