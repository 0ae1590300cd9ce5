import type { RuleName } from '../rules/registry';
/** Parsers for the strings the client library composes (spec 2.1, 2.2, 9). */

export interface ParsedSession {
  start: number | null;
  end: number | null;
  userMatches: boolean;
}

/** `<user_id>_<startMs>_<endMs>`; user ids may hold underscores, so parse from the right. */
export function parseSessionId(sId: string, userId: string): ParsedSession | undefined {
  const m = /^(.*)_(\d+)_(\d+)$/.exec(sId);
  if (!m) return undefined;
  const start = Number(m[2]);
  const end = Number(m[3]);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) return undefined;
  return { start, end: end === 0 ? null : end, userMatches: m[1] === userId };
}

/**
 * `<os>/<version>` (samples) or `<os>_<version>` (field table); a cross-platform wrapper prefixes its
 * own name (`rn/ios/1.2.3`: React Native on causalfoundry/ios-sdk 0.4.6+), returned as `wrapper`.
 */
export function parseSdk(sdk: string): { name: string; version: string; wrapper?: string } | undefined {
  const trimmed = sdk.trim();
  const wrapped = /^([a-z][a-z0-9-]*)\/([^/_]+)[/_](\d[^/]*)$/i.exec(trimmed);
  if (wrapped) return { name: (wrapped[2] as string).toLowerCase(), version: wrapped[3] as string, wrapper: (wrapped[1] as string).toLowerCase() };
  const m = /^([^/_]+)[/_](.+)$/.exec(trimmed);
  return m ? { name: (m[1] as string).toLowerCase(), version: m[2] as string } : undefined;
}

/** `<major>.<minor>.<patch> (<version_code>)`; the code is optional in what we accept. */
export function parseAppVersion(v: string): { version: string; code: number | null } | undefined {
  const m = /^(\d+\.\d+\.\d+[^\s(]*)\s*(?:\((\d+)\))?$/.exec(v.trim());
  if (!m) return undefined;
  const code = m[2] === undefined ? null : Number(m[2]);
  return { version: m[1] as string, code: code !== null && code <= 2147483647 ? code : null };
}

/**
 * App versions iOS clients compose from the bundle (Kenkai UIApplication.swift:45-51): a two-part
 * short version (`2.3 (45)`, normal on iOS) is read as it is (warning `app_version_two_part`); `0.0`,
 * what the client sends when the bundle has no short version, is an unknown version (warning
 * `app_version_unknown`; the code is kept when there is one).
 */
export function parseLooseAppVersion(v: string): { version: { version: string; code: number | null }; rule: RuleName; message: string } | undefined {
  const m = /^(\d+\.\d+)\s*(?:\((\d+)\))?$/.exec(v.trim());
  if (!m) return undefined;
  const code = m[2] === undefined || Number(m[2]) > 2147483647 ? null : Number(m[2]);
  if (m[1] === '0.0')
    return { version: { version: '', code }, rule: 'app_version_unknown', message: "0.0 is the client's placeholder for no version; left empty" };
  return { version: { version: m[1] as string, code }, rule: 'app_version_two_part', message: 'a two-part version (<major>.<minor>); read as sent' };
}
