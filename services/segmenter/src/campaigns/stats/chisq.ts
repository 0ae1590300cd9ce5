/**
 * The chi-square distribution's upper tail, for the sample-ratio test: Q(k/2, x/2), the regularized
 * upper incomplete gamma function, by its series below a + 1 and Lentz's continued fraction above
 * (Numerical Recipes §6.2), each to about 1e-15.
 */

// Lanczos (g = 7, n = 9) for ln Γ(a), a > 0: about 1e-15 relative.
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
  9.9843695780195716e-6, 1.5056327351493116e-7,
];

export function logGamma(a: number): number {
  if (a < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * a)) - logGamma(1 - a);
  const z = a - 1;
  let s = LANCZOS[0] as number;
  for (let i = 1; i < LANCZOS.length; i++) s += (LANCZOS[i] as number) / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(s);
}

/** Q(a, x) = Γ(a, x) / Γ(a) for a > 0, x ≥ 0. */
function upperGamma(a: number, x: number): number {
  if (x <= 0) return 1;
  const front = Math.exp(-x + a * Math.log(x) - logGamma(a));
  if (x < a + 1) {
    // P(a, x) = e^(−x) x^a / Γ(a) · Σ xⁿ / (a (a+1) … (a+n)).
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 10_000 && term > sum * 1e-17; n++) {
      term *= x / (a + n);
      sum += term;
    }
    return 1 - front * sum;
  }
  // Q(a, x) = e^(−x) x^a / Γ(a) · 1/(x + 1 − a − 1·(1 − a)/(x + 3 − a − 2·(2 − a)/(x + 5 − a − …))).
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 10_000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return front * h;
}

/** P(χ²_df ≥ x). */
export function chiSquareUpper(x: number, df: number): number {
  return Math.min(1, Math.max(0, upperGamma(df / 2, x / 2)));
}
