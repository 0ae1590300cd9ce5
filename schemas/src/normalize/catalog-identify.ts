import type { Reason } from '../rules/registry';
import type { CanonicalEvent } from '../canonical';
import { userCatalog } from '../catalogs/definitions';
import { validateObject } from '../dsl/validate';
import { identifyClient, versionParts } from '../clients/identity';
import { gateWarnings } from '../quirks/gate';
import { receiptChecks, type AcceptedCatalogRecord } from './catalog';

/** Identify actions that carry user catalog properties (spec 2.4: "an identify action (register or login)"). */
export const CATALOG_IDENTIFY_ACTIONS: readonly string[] = ['register', 'login'];

/**
 * Identify fields that are never user catalog fields even when spelled like one: identify's own
 * `referral_code` is ambiguous (the code used to sign up, or the user's own code, which is what the
 * catalog field means), so it stays on the event only; `id` is the envelope user, not a property.
 */
const NOT_CATALOG = new Set(['id', 'referral_code', 'action', 'blocked']);

export interface IdentifyCatalogResult {
  /** The derived user catalog record, or null when the event carries no (valid) user properties. */
  accepted: AcceptedCatalogRecord | null;
  /** Why properties that were given did not make a record; the event itself stays accepted. */
  reasons: Reason[];
}

/**
 * The timezone the client library tracked for the upload, used when the identify sends none. The
 * current form carries it as the envelope `tz` (2.1). The earlier form (2.2) has no envelope tz (its
 * canonical `tz` is empty), so taking `tz` alone left the required timezone missing and an
 * earlier-form identify never made a record. Its only time zone is that of its event times, and the
 * earlier-form client writes every `ts` in UTC (iOS CausalFoundrySDKCore ≤ 1.2.3,
 * `ISO8601DateFormatter`: `…Z`): so `Z`. Known gap: an earlier-form `ts` with another offset still
 * gives `Z`, because the canonical event keeps only the UTC instant, not the offset sent.
 */
const trackedTimezone = (e: CanonicalEvent): string | undefined => e.tz || (e.envelope === 'earlier' ? 'Z' : undefined);

/**
 * Spec 2.4 and 4.3: the user catalog can also arrive with an identify (register or login) whose
 * properties include user catalog fields. The event is unchanged (its unknown properties stay its
 * extra, never dropped); in addition, a `catalog.user` record is made from:
 *   id       = the event's user id (the envelope's),
 *   timezone = the property when sent, else the timezone the client library tracked (see
 *              `trackedTimezone`: the envelope tz of the current form, `Z` for the earlier form),
 *   fields   = every user catalog field found among the event's properties.
 * Only when at least one user catalog field other than timezone is present ("updated when properties
 * are given"). A derived record that fails the user definition is not a rejection — the submitted
 * thing was the event, which was accepted, so counts still add up — its reasons come back as
 * warnings of rule `identify_user_catalog` for the logs. The record's own warnings (a user catalog
 * quirk among the properties, `""` for gender, …) are gated by the client of the identify's envelope,
 * which the event already names (its form and sdk): from another client such a quirk is one of the
 * reasons, and no record is made.
 */
export function userCatalogFromIdentify(e: CanonicalEvent): IdentifyCatalogResult {
  const none: IdentifyCatalogResult = { accepted: null, reasons: [] };
  if (e.name !== 'identify' || !CATALOG_IDENTIFY_ACTIONS.includes(String(e.props.action))) return none;
  const extra = (e.props.__extra ?? {}) as Record<string, unknown>;
  const given = Object.keys(extra).filter((k) => k in userCatalog.fields && !NOT_CATALOG.has(k));
  if (given.filter((k) => k !== 'timezone').length === 0) return none;
  const candidate: Record<string, unknown> = { id: e.user_id, timezone: trackedTimezone(e) };
  for (const k of given) candidate[k] = extra[k];
  const v = validateObject(userCatalog, candidate, '$.identify');
  const reasons = [...v.reasons, ...receiptChecks(v.value, '$.identify', e.received_at, v.reasons)];
  if (!e.user_id) reasons.push({ path: '$.identify.id', rule: 'non_empty', message: 'id must not be empty' });
  const sender = { line: identifyClient(e.envelope, e.sdk_name, e.sdk_version), lineVersion: versionParts(e.sdk_version) ?? [] };
  const warnings = gateWarnings(v.warnings, sender, reasons);
  if (reasons.length > 0) {
    return {
      accepted: null,
      reasons: reasons.map((x) => ({
        path: x.path,
        rule: 'identify_user_catalog',
        message: `no user catalog record from identify ${e.event_id}: ${x.rule}: ${x.message}`,
      })),
    };
  }
  return {
    accepted: {
      record: {
        app_id: e.app_id,
        id: e.user_id,
        kind: 'user',
        received_at: e.received_at,
        request_id: e.request_id,
        record: v.value,
        extra: null,
      },
      warnings: [...warnings],
      index: null,
    },
    reasons: [],
  };
}
