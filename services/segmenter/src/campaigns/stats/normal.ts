/**
 * The standard normal distribution: its tails (from erfc, to about 1e-15 relative even far out, where
 * 1 − Φ would cancel) and its quantile. Everything else in this folder builds on these two.
 */

/**
 * erfc(x) for x ≥ 0: below 2.5 as 1 − erf with erf's series of positive terms,
 * erf(x) = 2/√π · e^(−x²) · Σ 2ⁿ x^(2n+1) / (1·3·…·(2n+1)) (no cancellation inside the sum);
 * above, the continued fraction erfc(x) = e^(−x²)/√π · 1/(x + (1/2)/(x + (2/2)/(x + (3/2)/(x + …)))),
 * evaluated from a fixed depth backwards (it converges fast there).
 */
function erfcPositive(x: number): number {
  if (x < 2.5) {
    let term = x;
    let sum = x;
    for (let n = 1; term > 1e-17 * sum; n++) {
      term *= (2 * x * x) / (2 * n + 1);
      sum += term;
    }
    return 1 - (2 / Math.sqrt(Math.PI)) * Math.exp(-x * x) * sum;
  }
  let t = x;
  for (let n = 80; n >= 1; n--) t = x + n / 2 / t;
  return Math.exp(-x * x) / (Math.sqrt(Math.PI) * t);
}

/** Φ(x) = P(N(0,1) ≤ x), precise in the lower tail (the upper tail is 1 − Φ(−x) = normalCdf(−x)). */
export function normalCdf(x: number): number {
  const e = erfcPositive(Math.abs(x) / Math.SQRT2) / 2;
  return x < 0 ? e : 1 - e;
}

/** P(|N(0,1)| ≥ |z|). */
export function twoSidedP(z: number): number {
  return Math.min(1, erfcPositive(Math.abs(z) / Math.SQRT2));
}

// Acklam's rational approximation of Φ⁻¹ (relative error 1.15e-9), then one Halley step against
// normalCdf, which brings it to the precision of normalCdf itself.
const A = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
const B = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
const C = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
const P_LOW = 0.02425;

const poly = (c: number[], x: number) => c.reduce((acc, k) => acc * x + k, 0);

/** Φ⁻¹(p) for 0 < p < 1 (±Infinity at 0 and 1). */
export function normalQuantile(p: number): number {
  if (p <= 0) return -Infinity;
  if (p >= 1) return Infinity;
  let x: number;
  if (p < P_LOW) {
    const q = Math.sqrt(-2 * Math.log(p));
    x = poly(C, q) / (poly(D, q) * q + 1);
  } else if (p <= 1 - P_LOW) {
    const q = p - 0.5;
    const r = q * q;
    x = (poly(A, r) * q) / (poly(B, r) * r + 1);
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x = -poly(C, q) / (poly(D, q) * q + 1);
  }
  // Halley: the error e = Φ(x) − p, taken in the tail where it is precise.
  const e = p < 0.5 ? normalCdf(x) - p : 1 - p - normalCdf(-x);
  const u = e * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2);
  return x - u / (1 + (x * u) / 2);
}
