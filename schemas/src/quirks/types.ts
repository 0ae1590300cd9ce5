import type { ClientLine } from '../clients/identity';
import type { RuleName } from '../rules/registry';

/** A client line, all its versions, or some of them. */
export type GateEntry = ClientLine | { line: ClientLine; from: string; to: string };

/**
 * A known quirk of a real client: something it sends that differs from the spec but can be
 * interpreted. The validator normalises it and accepts the event or record with a warning whose
 * rule is `rule`, so an app can see what was changed (receipts, the inspector), **but only for the
 * clients its `gate` names**: from any other client the same input meets the spec's rule
 * (`otherwise`). docs/data-contract.md lists every quirk with its gate (generated from these lists).
 */
export interface ClientQuirk {
  /** The warning rule, snake_case, stable: apps and dashboards match on it. */
  rule: RuleName;
  /** What the client sends, in words. */
  sends: string;
  /** What the platform makes of it. */
  becomes: string;
  /** Which clients and versions send it, e.g. `causalfoundry/ios-sdk 0.4.3–1.2.3`. */
  clients: string;
  /** The client source file(s) that show it. */
  source: string;
  /**
   * The clients it is accepted from (clients/identity.ts: sdk platform and version range, envelope
   * form) — a line, or a line between two sdk versions (`{ line: 'ios-cf', from: '0.4.3', to: '0.5.3' }`,
   * inclusive) — or `every` for a reading the spec itself allows, reported for every client.
   */
  gate: readonly GateEntry[] | 'every';
  /**
   * What an event of any other client gets instead: the spec's rule it breaks. An error rule rejects
   * the event (`required`, `enum`, …; `client_quirk` when the spec has no narrower rule); a warning
   * rule (`sdk_shape`, `session_id_shape`, `app_version_shape`) keeps the platform's reading for every
   * client under that warning.
   */
  otherwise: RuleName;
}
