import type { EnvelopeForm } from '../canonical';

/**
 * The real clients whose quirks the platform accepts, each recognised by what it says about itself
 * (docs/data-contract.md, "Which client sent it"; docs/clients/*.md):
 *
 * - `ios-cf`: the older CausalFoundry iOS line, causalfoundry/ios-sdk 0.4.3–1.2.3 — an earlier-form
 *   envelope whose `sdk` is `ios/<version>` (or `rn/ios/<version>` from its React Native wrapper)
 *   with the version in that range (CoreConstants.SDKVersion of each tag).
 * - `ios-kenkai`: the Kenkai iOS client, causalfoundry/ios-sdk 1.0.0–1.0.1 — a current-form envelope
 *   whose `internal.sdk` is `ios/1.0.0` or `ios/1.0.1` (or `rn/ios/…`).
 * - `unity-ios`: the Kenkai Core 1.0.10 bundled by causalfoundry/unity-sdk 1.0.10 — a current-form
 *   envelope whose `internal.sdk` is `ios/1.0.10`.
 * - `server-import`: a server-side import (benshi-ai/open-synthetic-data-generator) — the flat form
 *   (`{"data": [{u_id, d_id, os, …}]}`), which no client library sends.
 *
 * Anything else — `web/1.0.0`, `android/2.0.0`, an `ios` version outside these ranges, another form —
 * is no known client (null): it meets the spec's rules, with no quirk forgiven.
 */
export type ClientLine = 'ios-cf' | 'ios-kenkai' | 'unity-ios' | 'server-import';

export const CLIENT_LINES: readonly ClientLine[] = ['ios-cf', 'ios-kenkai', 'unity-ios', 'server-import'];

/** `1.2.3` → [1, 2, 3]; undefined for anything that is not dot-separated numbers. */
export function versionParts(v: string): number[] | undefined {
  if (!/^\d+(\.\d+)*$/.test(v)) return undefined;
  return v.split('.').map(Number);
}

/** a ≤ b as versions (missing parts are 0). */
function atMost(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x < y;
  }
  return true;
}

/** from ≤ v ≤ to, as versions. */
export const inRange = (v: readonly number[], from: readonly number[], to: readonly number[]) => atMost(from, v) && atMost(v, to);

/**
 * Which known client sent an envelope, from its form and its parsed `sdk` (name without a wrapper,
 * version): computed once per envelope (per log in the flat form, where it is constant), so every
 * gate check on the hot path is a comparison of this value.
 */
export function identifyClient(form: EnvelopeForm, sdkName: string, sdkVersion: string): ClientLine | null {
  if (form === 'flat') return 'server-import';
  if (sdkName !== 'ios') return null;
  const v = versionParts(sdkVersion);
  if (v === undefined) return null;
  if (form === 'earlier') return inRange(v, [0, 4, 3], [1, 2, 3]) ? 'ios-cf' : null;
  if (v.length === 3 && v[0] === 1 && v[1] === 0) {
    if (v[2] === 0 || v[2] === 1) return 'ios-kenkai';
    if (v[2] === 10) return 'unity-ios';
  }
  return null;
}
