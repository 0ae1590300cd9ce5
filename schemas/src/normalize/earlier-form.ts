import { isObject } from '@evp/contract';
import type { Reason } from '../rules/registry';
import { FieldReader, pickUnknown } from './fields';
import { identifyClient, versionParts } from '../clients/identity';
import { sessionFacts, type ReadAppVersion } from './session-facts';
import type { EnvelopeFacts, RawEvent } from './types';

const EVENT_KEYS = ['block', 'ol', 'ts', 'type', 'props'];

/**
 * Earlier form (spec 2.2): `{s_id, u_id, d_info, app_info, sdk, up, dn, data[{block, ol, ts, type, props}]}`.
 * up/dn, d_info and app_info are kept in `client`, not dropped. The earlier form has no tz: event
 * times carry their own offset (ISO 8601).
 */
export function readEarlierEnvelope(env: Record<string, unknown>, path: string): { facts?: EnvelopeFacts; reasons: Reason[] } {
  const r = new FieldReader(env, path);
  const sId = r.string(['s_id']);
  const userId = r.string(['u_id']);
  const sdk = r.string(['sdk']);
  const dInfo = r.object('d_info');
  const appInfo = r.object('app_info');
  const up = r.int('up');
  const dn = r.int('dn');
  if (!Array.isArray(env.data)) r.reasons.push({ path: `${path}.data`, rule: 'required', message: 'data must be an array of logs' });
  const dr = dInfo ? new FieldReader(dInfo, `${path}.d_info`) : undefined;
  const deviceId = dr?.string(['id']);
  const os = dr?.string(['os']);
  for (const f of ['brand', 'model', 'os_ver']) dr?.string([f]);
  const ar = appInfo ? new FieldReader(appInfo, `${path}.app_info`) : undefined;
  const appVersion = ar?.string(['version']);
  ar?.string(['id']);
  ar?.string(['version_name']);
  for (const f of ['min_sdk_version', 'target_sdk_version', 'version_code']) ar?.int(f);
  const reasons = [...r.reasons, ...(dr?.reasons ?? []), ...(ar?.reasons ?? [])];
  if (reasons.length > 0) return { reasons };
  const { sdkWrapper, ...s } = sessionFacts({
    sId: sId as string,
    userId: userId as string,
    sdk: sdk as string,
    appVersion: majorBuildVersion(appInfo as Record<string, unknown>, `${path}.app_info`) ?? (appVersion as string),
    path,
  });
  const versionCode = (appInfo as Record<string, unknown>).version_code as number;
  const client: Record<string, unknown> = { up, dn, d_info: dInfo, app_info: appInfo };
  if (sdkWrapper !== undefined) client.sdk_wrapper = sdkWrapper;
  const unknownEnvelope = pickUnknown(env, ['s_id', 'u_id', 'd_info', 'app_info', 'sdk', 'up', 'dn', 'data', 'sent_at']);
  if (Object.keys(unknownEnvelope).length > 0) client.envelope_extra = unknownEnvelope;
  return {
    reasons: [],
    facts: {
      form: 'earlier',
      line: identifyClient('earlier', s.sdkName, s.sdkVersion),
      lineVersion: versionParts(s.sdkVersion) ?? [],
      userId: userId as string,
      sessionId: sId as string,
      ...s,
      appVersionCode: s.appVersionCode ?? versionCode,
      deviceId: deviceId as string,
      os: os as string,
      tz: '',
      client,
    },
  };
}

/**
 * causalfoundry/ios-sdk 0.4.3–1.1.4 fill app_info as `version: "<major>.<build>"`, `version_code: <major>`,
 * `version_name: "<build>"` (CFSetup.getApplicationInfo: versionBuild(), appVersion(), build()), e.g.
 * `"2.57"`, 2, `"57"`. Recognised exactly by that agreement: the version is kept as sent and the
 * version code is the build number (what the spec's version_code means: unique per release), not the
 * major version. Undefined for any other app_info.
 */
export function majorBuildVersion(appInfo: Record<string, unknown>, path: string): ReadAppVersion | undefined {
  const { version, version_code: major, version_name: build } = appInfo;
  if (typeof version !== 'string' || typeof build !== 'string' || !Number.isInteger(major)) return undefined;
  const m = /^(\d+)\.(\d+)$/.exec(version);
  if (!m || Number(m[1]) !== major || m[2] !== build) return undefined;
  const code = Number(build);
  return {
    version,
    code: code <= 2147483647 ? code : null,
    warning: {
      path: `${path}.version`,
      rule: 'app_version_major_build',
      message: `app_info.version ${JSON.stringify(version)} is <major>.<build> (version_code ${String(major)} is the major version); app_version_code is the build ${build}`,
    },
  };
}

export function readEarlierEvent(item: unknown, path: string): { event?: RawEvent; reasons: Reason[] } {
  if (!isObject(item)) return { reasons: [{ path, rule: 'type', message: 'a log must be an object' }] };
  const r = new FieldReader(item, path);
  // `""` is read (causalfoundry/ios-sdk rate events send it; normalize/block.ts decides), absence is not.
  const block = r.string(['block'], false);
  if (block === undefined && (item.block === undefined || item.block === null)) {
    r.reasons.push({ path: `${path}.block`, rule: 'required', message: 'block is required' });
  }
  const type = r.string(['type']);
  const ts = r.string(['ts']);
  const props = r.object('props');
  if (typeof item.ol !== 'boolean') {
    r.reasons.push({ path: `${path}.ol`, rule: item.ol === undefined ? 'required' : 'type', message: 'ol must be a boolean' });
  }
  // With a type and props the event can still be validated: its faults in the log's own fields are
  // reported together with those in its properties (one answer names them all).
  if (type === undefined || props === undefined || (block === undefined && r.reasons.length > 0)) return { reasons: r.reasons };
  const meta = props.meta;
  const rest = withoutMeta(props);
  return {
    reasons: r.reasons,
    event: {
      name: type,
      time: ts ?? '',
      online: item.ol as boolean,
      property: null,
      props: rest,
      meta: meta ?? null,
      declaredBlock: block as string,
      extra: pickUnknown(item, EVENT_KEYS),
    },
  };
}

/**
 * `props` without `meta`, the same as the rest of `{ meta, ...rest } = props`: same keys, order and
 * values, `__proto__` kept as data. A loop because V8 runs object rest with excluded keys on a slow
 * generic path, once per event here. Symbol keys, which no later step reads, are not copied.
 */
function withoutMeta(props: Record<string, unknown>): Record<string, unknown> {
  const rest: Record<string, unknown> = {};
  const keys = Object.keys(props);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    if (k === 'meta') continue;
    if (k === '__proto__') Object.defineProperty(rest, k, { value: props[k], enumerable: true, writable: true, configurable: true });
    else rest[k] = props[k];
  }
  return rest;
}
