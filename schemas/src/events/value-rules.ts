import { asWarning } from '../dsl/rules';
import type { ObjectRule } from '../dsl/types';
import { ISO_4217_ACTIVE } from './iso4217';
import type { RuleName } from '../rules/registry';

/**
 * Rules on single values that a type cannot express (currency codes, ISO 8601 date-times), shared by
 * the events and objects that carry such values. Values a real client library sends although they
 * break the rule are known quirks: accepted with a warning whose rule names the quirk and whose
 * message names the client (docs/data-contract.md, "Other choices", lists each one).
 */

/**
 * Codes of the iOS SDK's `CurrencyCode` enum that are not active ISO 4217 codes: local issues that
 * never had an ISO code (GGP, IMP, JEP, SPL, TVD) and withdrawn codes (ANG, BGN, BYR, CUC, HRK, MRO,
 * SLL, STD, VEF, ZWD). The same 162-code enum is in CausalFoundrySDKCore 0.4.3–1.2.3
 * (`CausalFoundrySDKCore/Sources/EventTypes/CurrencyCode.swift`) and KenkaiSDK 1.0.1
 * (`KenkaiSDKCore/Sources/EventTypes/CurrencyCode.swift`, bundled by the Unity SDK 1.0.10), and the
 * SDK's validators accept exactly that enum, so apps on those versions send these codes.
 */
const IOS_SDK_NON_ISO_CURRENCIES: ReadonlySet<string> = new Set('ANG BGN BYR CUC GGP HRK IMP JEP MRO SLL SPL STD TVD VEF ZWD'.split(' '));

const IOS_SDK_CURRENCY_QUIRK =
  'accepted as a known client quirk: the iOS SDK (CausalFoundrySDKCore 0.4.3–1.2.3, KenkaiSDK 1.0.1) offers it in its CurrencyCode list';

/**
 * `field`, when present, must be an active ISO 4217 code (`currency_code`). Codes of the iOS SDK's
 * own list that are not (GGP, HRK, …) are accepted with a `currency_code_ios_list` warning.
 * `empty` names a client that sends `""` for this field (the redeem object's currency when the app
 * gives none) by the warning rule and message of that quirk: an empty string is then accepted with
 * that warning instead of rejected.
 */
export function currencyCode(field: string, empty?: { rule: RuleName; message: string }): ObjectRule {
  const emptyQuirk = (c: unknown) => empty !== undefined && c === '';
  const reject: ObjectRule = (v) => {
    const c = v[field];
    return typeof c === 'string' && !ISO_4217_ACTIVE.has(c) && !IOS_SDK_NON_ISO_CURRENCIES.has(c) && !emptyQuirk(c)
      ? [{ path: field, rule: 'currency_code', message: `${JSON.stringify(c)} is not an active ISO 4217 currency code` }]
      : [];
  };
  const warn: ObjectRule = asWarning((v) => {
    const c = v[field];
    if (typeof c === 'string' && IOS_SDK_NON_ISO_CURRENCIES.has(c)) {
      return [{ path: field, rule: 'currency_code_ios_list', message: `${c} is not an active ISO 4217 currency code; ${IOS_SDK_CURRENCY_QUIRK}` }];
    }
    return emptyQuirk(c) && empty !== undefined ? [{ path: field, rule: empty.rule, message: empty.message }] : [];
  });
  return (v) => [...reject(v), ...warn(v)];
}

/**
 * ISO 8601 date and time of day with seconds, an optional fraction (1–9 digits) and a UTC designator
 * or offset: `2023-11-16T10:00:00Z`, `2023-11-16T10:00:00.000+03:00`, `2023-11-16T10:00:00.123456Z`.
 * These are the forms the clients send (iOS SDK: `yyyy-MM-dd'T'HH:mm:ss.SSSZZZZZ`; the synthetic
 * data generator: `%Y-%m-%dT%H:%M:%S.%fZ`). A time without an offset is ambiguous, so it is not one.
 */
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2}))$/;

function isIsoDateTime(value: string): boolean {
  const m = ISO_DATE_TIME.exec(value);
  if (!m) return false;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (h > 23 || mi > 59 || s > 59) return false;
  if (m[7] !== undefined && (Number(m[7]) > 14 || Number(m[8]) > 59)) return false;
  // A real calendar date (no 2023-02-30); setUTCFullYear keeps years below 100 as they are.
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** `field`, when present, must be an ISO 8601 date-time with an offset (`time_format`). */
export const isoDateTime =
  (field: string): ObjectRule =>
  (v) => {
    const t = v[field];
    return typeof t === 'string' && !isIsoDateTime(t)
      ? [{ path: field, rule: 'time_format', message: `${field} must be an ISO 8601 date-time with Z or an offset (e.g. 2023-11-16T10:00:00.000+03:00)` }]
      : [];
  };
