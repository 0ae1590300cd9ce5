/**
 * A known quirk of a real client: something it sends that differs from the spec but can be
 * interpreted. The validator normalises it and accepts the event or record with a warning whose
 * rule is `rule`, so an app can see what was changed (receipts, the inspector); only what cannot
 * be interpreted is rejected. docs/data-contract.md lists every quirk (generated from these lists).
 */
export interface ClientQuirk {
  /** The warning rule, snake_case, stable: apps and dashboards match on it. */
  rule: string;
  /** What the client sends, in words. */
  sends: string;
  /** What the platform makes of it. */
  becomes: string;
  /** Which clients and versions send it, e.g. `causalfoundry/ios-sdk 0.4.3–1.2.3`. */
  clients: string;
  /** The client source file(s) that show it. */
  source: string;
}
