/**
 * Adjusted p-values for a family of tests (R's p.adjust): Holm controls the chance of any false
 * "significant" (the goal across variants); Benjamini–Hochberg the expected share of false ones among
 * those called significant (secondary metrics and breakdowns, where many readings are looked at).
 * Both keep the input's order.
 */

function ranked(ps: readonly number[]): number[] {
  return ps.map((_, i) => i).sort((a, b) => (ps[a] as number) - (ps[b] as number));
}

/** Holm (1979): the i-th smallest of m times (m − i + 1), made non-decreasing, capped at 1. */
export function holm(ps: readonly number[]): number[] {
  const m = ps.length;
  const out = new Array<number>(m);
  let running = 0;
  ranked(ps).forEach((idx, i) => {
    running = Math.max(running, Math.min(1, (m - i) * (ps[idx] as number)));
    out[idx] = running;
  });
  return out;
}

/** Benjamini–Hochberg (1995): the i-th smallest of m times m / i, made non-increasing from the top, capped at 1. */
export function benjaminiHochberg(ps: readonly number[]): number[] {
  const m = ps.length;
  const order = ranked(ps);
  const out = new Array<number>(m);
  let running = 1;
  for (let i = m - 1; i >= 0; i--) {
    const idx = order[i] as number;
    running = Math.min(running, ((ps[idx] as number) * m) / (i + 1));
    out[idx] = running;
  }
  return out;
}
