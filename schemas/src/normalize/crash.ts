import { userTokenVerdict } from './user-token';
import type { Reason } from '../rules/registry';
import type { CanonicalEvent, IngestContext } from '../canonical';
import { validateObject } from '../dsl/validate';
import { eventDef } from '../events/event-defs';
import { majorBuildVersion } from './earlier-form';
import { eventId } from './event-id';
import { isObject } from '@evp/contract';
import { FieldReader, pickUnknown } from './fields';
import { clientFacts } from './session-facts';
import { parseEventTime } from './time';
import { DEFAULT_NORMALIZE_OPTIONS, type NormalizeOptions, type NormalizeResult, type Rejection } from './types';
import { identifyClient, versionParts } from '../clients/identity';
import { gateWarnings } from '../quirks/gate';
import { futureTimeWarning } from './future-time';

const ENVELOPE_KEYS = ['u_id', 'd_info', 'app_info', 'sdk', 'data'];

/**
 * The crash upload of causalfoundry/ios-sdk 0.4.3–1.2.3 (`POST /v1/ingest/sdk/crash`, not in the
 * spec; MainExceptionBody.swift, ExceptionManager.swift): the earlier envelope without s_id, up and
 * dn, holding the exceptions the client library met —
 * `{u_id, d_info, app_info, sdk, data: [{title, event_type, exception_type, exception_source, stack_trace, ts}]}`.
 * Each item becomes one core `exception` event (the event the Kenkai line logs for the same thing),
 * with a `sdk_crash_item` warning: its `ts` (device-local with offset and milliseconds) is the event
 * time; a crash upload has no session (session fields empty) and no connectivity flag (online false).
 * Counts add up as for logs: items in = accepted + Σ rejected.event_count.
 */
export function normalizeCrashUpload(body: unknown, ctx: IngestContext, options: NormalizeOptions = DEFAULT_NORMALIZE_OPTIONS): NormalizeResult {
  const out: NormalizeResult = { accepted: [], rejected: [] };
  const envelopeRejection = (reasons: Reason[]) =>
    out.rejected.push({
      kind: 'envelope_violation',
      reasons,
      payload: body,
      event_count: isObject(body) && Array.isArray(body.data) ? Math.max(body.data.length, 1) : 1,
      envelope_index: null,
      event_index: null,
      event_name: null,
    });
  if (!isObject(body)) {
    envelopeRejection([{ path: '$', rule: 'type', message: 'a crash upload must be an object' }]);
    return out;
  }
  const r = new FieldReader(body, '$');
  const userId = r.string(['u_id']);
  const sdk = r.string(['sdk']);
  const dInfo = r.object('d_info');
  const appInfo = r.object('app_info');
  if (!Array.isArray(body.data)) r.reasons.push({ path: '$.data', rule: 'required', message: 'data must be an array of crash items' });
  const dr = dInfo ? new FieldReader(dInfo, '$.d_info') : undefined;
  const deviceId = dr?.string(['id']);
  const os = dr?.string(['os']);
  const ar = appInfo ? new FieldReader(appInfo, '$.app_info') : undefined;
  const appVersion = ar?.string(['version']);
  const reasons = [...r.reasons, ...(dr?.reasons ?? []), ...(ar?.reasons ?? [])];
  if (reasons.length > 0) {
    envelopeRejection(reasons);
    return out;
  }
  const envelopeWarnings: Reason[] = [];
  const facts = clientFacts(
    { sdk: sdk as string, appVersion: majorBuildVersion(appInfo as Record<string, unknown>, '$.app_info') ?? (appVersion as string), path: '$' },
    envelopeWarnings,
  );
  // Only causalfoundry/ios-sdk uploads crash items (0.4.3–1.2.3, the earlier form's fields): its quirks,
  // sdk_crash_item itself included, are gated by its sdk like those of its logs (quirks/gate.ts).
  const sender = { line: identifyClient('earlier', facts.sdkName, facts.sdkVersion), lineVersion: versionParts(facts.sdkVersion) ?? [] };
  const versionCode = (appInfo as Record<string, unknown>).version_code;
  const client: Record<string, unknown> = { crash_upload: true, d_info: dInfo, app_info: appInfo };
  if (facts.sdkWrapper !== undefined) client.sdk_wrapper = facts.sdkWrapper;
  const unknownEnvelope = pickUnknown(body, ENVELOPE_KEYS);
  if (Object.keys(unknownEnvelope).length > 0) client.envelope_extra = unknownEnvelope;
  const def = eventDef('exception');
  // Unreachable while core.ts defines the exception event (the registry tests hold that).
  if (!def) throw new Error('no exception event definition');
  const data = body.data as unknown[];
  for (let j = 0; j < data.length; j++) {
    if (!(j in data)) continue;
    const item = data[j];
    const path = `$.data[${j}]`;
    const reject = (kind: Rejection['kind'], errs: Reason[]) =>
      out.rejected.push({ kind, reasons: errs, payload: item, event_count: 1, envelope_index: null, event_index: j, event_name: 'exception' });
    const size = JSON.stringify(item)?.length ?? 0;
    if (size > options.maxEventChars) {
      reject('size_violation', [{ path, rule: 'max_size', message: `crash item is ${size} characters; the limit is ${options.maxEventChars}` }]);
      continue;
    }
    if (!isObject(item)) {
      reject('schema_violation', [{ path, rule: 'type', message: 'a crash item must be an object' }]);
      continue;
    }
    const itemReasons: Reason[] = [];
    const time = typeof item.ts === 'string' ? parseEventTime(item.ts, undefined) : undefined;
    if (time === undefined) {
      itemReasons.push({
        path: `${path}.ts`,
        rule: item.ts === undefined || item.ts === null ? 'required' : 'time_format',
        message: 'ts must be ISO 8601 with an offset: it is the time of the crash item',
      });
    }
    const validated = validateObject(def, item, path);
    itemReasons.push(...validated.reasons);
    const crashWarning: Reason = {
      path,
      rule: 'sdk_crash_item',
      message: 'an item of the SDK crash upload, stored as an exception event: ts is its time; no session or connectivity is sent (online false)',
    };
    const future = time === undefined ? undefined : futureTimeWarning(time, ctx.receivedAt, `${path}.ts`);
    const gated = gateWarnings([crashWarning, ...envelopeWarnings, ...(future ? [future] : []), ...validated.warnings], sender, itemReasons);
    const tokenVerdict = ctx.userToken === undefined ? null : userTokenVerdict(ctx.userToken, userId as string, path);
    if (tokenVerdict?.reject) itemReasons.push(tokenVerdict.reason);
    const warnings = tokenVerdict && !tokenVerdict.reject ? [...gated, tokenVerdict.reason] : gated;
    if (itemReasons.length > 0) {
      reject('schema_violation', itemReasons);
      continue;
    }
    const props = Object.keys(validated.unknown).length > 0 ? { ...validated.value, __extra: validated.unknown } : validated.value;
    const event: CanonicalEvent = {
      event_id: eventId({
        appId: ctx.appId,
        userId: userId as string,
        sessionId: '',
        name: def.event,
        time: time as number,
        content: { property: null, props: item, meta: null },
      }),
      app_id: ctx.appId,
      user_id: userId as string,
      session_id: '',
      session_start: null,
      session_end: null,
      device_id: deviceId as string,
      os: os as string,
      sdk_name: facts.sdkName,
      sdk_version: facts.sdkVersion,
      app_version: facts.appVersion,
      app_version_code:
        facts.appVersionCode ?? (Number.isInteger(versionCode) && Math.abs(versionCode as number) <= 2147483647 ? (versionCode as number) : null),
      tz: '',
      block: def.block,
      name: def.event,
      sent_name: null,
      property: null,
      time: time as number,
      online: false,
      received_at: ctx.receivedAt,
      // A crash upload carries no send time: its items' times stay as the device wrote them.
      sent_at: null,
      corrected_time: time as number,
      request_id: ctx.requestId,
      pseudonym_key: null,
      envelope: 'earlier',
      props,
      meta: null,
      client,
      warnings: warnings as Reason[],
    };
    out.accepted.push({ event, warnings: event.warnings, event_index: j });
  }
  return out;
}
