import type { Reason } from '../rules/registry';
import { parseAppVersion, parseLooseAppVersion, parseSdk, parseSessionId } from './client-fields';

/** An app version a reader already interpreted (a client's own shape), with the warning naming it. */
export interface ReadAppVersion {
  version: string;
  code: number | null;
  warning: Reason;
}

/** Parses s_id, sdk and app version the same way for both forms; malformed parts are warnings. */
export function sessionFacts(input: { sId: string; userId: string; sdk: string; appVersion: string | ReadAppVersion; path: string }) {
  const warnings: Reason[] = [];
  const session = parseSessionId(input.sId, input.userId);
  let sessionEnd = session?.end ?? null;
  if (!session) {
    warnings.push({ path: `${input.path}.s_id`, rule: 'session_id_shape', message: 's_id is not <user_id>_<startMs>_<endMs>' });
  } else if (!session.userMatches) {
    warnings.push({ path: `${input.path}.s_id`, rule: 'session_user_mismatch', message: "s_id does not start with the envelope's user id" });
  }
  if (session && session.end !== null && session.start !== null && session.end < session.start) {
    // Both iOS lines keep the end part at the last background while a resume resets the start part
    // (causalfoundry/ios-sdk 0.4.3–1.2.3; Kenkai builds s_id at upload time, IngestAPIHandler.swift:70):
    // the end belongs to an earlier session, so it is no end of this one (unknown, not negative).
    warnings.push({
      path: `${input.path}.s_id`,
      rule: 'session_end_before_start',
      message: `the end part of s_id (${session.end}) is before its start part (${session.start}); session_end left unset`,
    });
    sessionEnd = null;
  }
  const client = clientFacts({ sdk: input.sdk, appVersion: input.appVersion, path: input.path }, warnings);
  return { sessionStart: session?.start ?? null, sessionEnd, ...client, warnings };
}

/** The client library and app version of an envelope (both forms, and the crash upload); problems are warnings. */
export function clientFacts(input: { sdk: string; appVersion: string | ReadAppVersion; path: string }, warnings: Reason[]) {
  const sdk = parseSdk(input.sdk);
  if (!sdk) warnings.push({ path: `${input.path}.sdk`, rule: 'sdk_shape', message: 'sdk is not <os>/<version> or <os>_<version>' });
  else if (sdk.wrapper !== undefined) {
    warnings.push({
      path: `${input.path}.sdk`,
      rule: 'sdk_wrapper',
      message: `${input.sdk}: the ${sdk.wrapper} wrapper around ${sdk.name} ${sdk.version}; sdk_name ${sdk.name}, the wrapper kept in client.sdk_wrapper`,
    });
  }
  let version: { version: string; code: number | null } | undefined;
  if (typeof input.appVersion === 'string') {
    version = parseAppVersion(input.appVersion);
    const loose = version ? undefined : parseLooseAppVersion(input.appVersion);
    if (loose) {
      version = loose.version;
      warnings.push({ path: `${input.path}.app_version`, rule: loose.rule, message: loose.message });
    } else if (!version) {
      warnings.push({ path: `${input.path}.app_version`, rule: 'app_version_shape', message: 'app version is not <major>.<minor>.<patch> (<code>)' });
    }
  } else {
    version = input.appVersion;
    warnings.push(input.appVersion.warning);
  }
  const sentVersion = typeof input.appVersion === 'string' ? input.appVersion : input.appVersion.version;
  return {
    sdkName: sdk?.name ?? input.sdk,
    sdkVersion: sdk?.version ?? '',
    sdkWrapper: sdk?.wrapper,
    appVersion: version?.version ?? sentVersion,
    appVersionCode: version?.code ?? null,
  };
}
