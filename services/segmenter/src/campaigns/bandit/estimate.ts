import { normalQuantile, type Interval, type Proportion } from '../stats';

/**
 * The epoch-weighted uplift of an adaptive campaign: Σₑ (Nₑ/N)·Δₑ, Δₑ the variant-minus-control
 * difference among the users first assigned in epoch e, Nₑ those users (all groups). Pooling all
 * epochs instead is biased when base rates drift: the variant's share grows in some epochs and not
 * control's, so the pooled variant rate over-weights those epochs. Within an epoch the split is
 * fixed, so Δₑ is an ordinary randomized comparison; the weighted sum of independent epochs has
 * variance Σₑ (Nₑ/N)²·Var(Δₑ) (Wald per epoch). Epochs where either group is empty are skipped and
 * their weight given to the others.
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
  const used = epochs.filter((e) => e.control.audience > 0 && e.variant.audience > 0);
  const n = used.reduce((s, e) => s + e.users, 0);
  if (used.length === 0 || n === 0) return { method: 'epoch_weighted', estimate: null, ci: null, epochs: 0 };
  let estimate = 0;
  let variance = 0;
  for (const e of used) {
    const w = e.users / n;
    const pc = e.control.converted / e.control.audience;
    const pv = e.variant.converted / e.variant.audience;
    estimate += w * (pv - pc);
    variance += w * w * ((pc * (1 - pc)) / e.control.audience + (pv * (1 - pv)) / e.variant.audience);
  }
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const half = z * Math.sqrt(variance);
  return { method: 'epoch_weighted', estimate, ci: [estimate - half, estimate + half], epochs: used.length };
}
