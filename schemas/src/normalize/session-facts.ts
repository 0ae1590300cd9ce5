import type { RejectionReason } from '@evp/core';
import { parseAppVersion, parseLooseAppVersion, parseSdk, parseSessionId } from './client-fields';

/** Parses s_id, sdk and app version the same way for both forms; malformed parts are warnings. */
export function sessionFacts(input: { sId: string; userId: string; sdk: string; appVersion: string; path: string }) {
  const warnings: RejectionReason[] = [];
  const session = parseSessionId(input.sId, input.userId);
  if (!session) {
    warnings.push({ path: `${input.path}.s_id`, rule: 'session_id_shape', message: 's_id is not <user_id>_<startMs>_<endMs>' });
  } else if (!session.userMatches) {
    warnings.push({ path: `${input.path}.s_id`, rule: 'session_user_mismatch', message: "s_id does not start with the envelope's user id" });
  }
  // Kenkai builds s_id at upload time from the current start and the last background time, so after
  // a resume the end is before the start (IngestAPIHandler.swift:70): the end is unknown, not negative.
  let sessionEnd = session?.end ?? null;
  if (session && sessionEnd !== null && session.start !== null && sessionEnd < session.start) {
    warnings.push({ path: `${input.path}.s_id`, rule: 'session_end_before_start', message: 's_id ends before it starts; the end is left unknown' });
    sessionEnd = null;
  }
  const sdk = parseSdk(input.sdk);
  if (!sdk) warnings.push({ path: `${input.path}.sdk`, rule: 'sdk_shape', message: 'sdk is not <os>/<version> or <os>_<version>' });
  let version = parseAppVersion(input.appVersion);
  const loose = version ? undefined : parseLooseAppVersion(input.appVersion);
  if (loose) {
    version = loose.version;
    warnings.push({ path: `${input.path}.app_version`, rule: loose.rule, message: loose.message });
  } else if (!version) {
    warnings.push({ path: `${input.path}.app_version`, rule: 'app_version_shape', message: 'app version is not <major>.<minor>.<patch> (<code>)' });
  }
  return {
    sessionStart: session?.start ?? null,
    sessionEnd,
    sdkName: sdk?.name ?? input.sdk,
    sdkVersion: sdk?.version ?? '',
    appVersion: version?.version ?? input.appVersion,
    appVersionCode: version?.code ?? null,
    warnings,
  };
}
