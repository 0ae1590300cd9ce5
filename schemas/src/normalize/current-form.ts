import type { Reason } from '../rules/registry';
import { isObject } from '@evp/contract';
import { FieldReader, pickUnknown } from './fields';
import { identifyClient, versionParts } from '../clients/identity';
import { sessionFacts } from './session-facts';
import type { EnvelopeFacts, RawEvent } from './types';

// sent_at is read for every form by the normaliser (sent-at.ts).
const ENVELOPE_KEYS = ['id', 'tz', 'internal', 'data', 'sent_at'] as const;
const INTERNAL_KEYS = ['s_id', 'sdk', 'app_id', 'a_id', 'app_version', 'a_ver', 'device_id', 'd_id', 'device_os', 'os', 'context'];
const EVENT_KEYS = ['time', 'ts', '__ol', 'name', 'property', 'ctx', 'meta'];

/** Current form (spec 2.1): `{id, tz, internal{…}, data[{time, __ol, name, property, ctx}]}`. */
export function readCurrentEnvelope(env: Record<string, unknown>, path: string): { facts?: EnvelopeFacts; reasons: Reason[] } {
  const r = new FieldReader(env, path);
  const userId = r.string(['id']);
  const tz = r.string(['tz']);
  const internal = r.object('internal');
  if (!Array.isArray(env.data)) r.reasons.push({ path: `${path}.data`, rule: 'required', message: 'data must be an array of logs' });
  if (!internal) return { reasons: r.reasons };
  const ir = new FieldReader(internal, `${path}.internal`);
  const sId = ir.string(['s_id']);
  const sdk = ir.string(['sdk']);
  const declaredAppId = ir.string(['app_id', 'a_id']);
  const appVersion = ir.string(['app_version', 'a_ver']);
  const deviceId = ir.string(['device_id', 'd_id']);
  const os = ir.string(['device_os', 'os']);
  const reasons = [...r.reasons, ...ir.reasons];
  if (reasons.length > 0) return { reasons };
  const { sdkWrapper, ...s } = sessionFacts({
    sId: sId as string,
    userId: userId as string,
    sdk: sdk as string,
    appVersion: appVersion as string,
    path: `${path}.internal`,
  });
  const unknownEnvelope = pickUnknown(env, ENVELOPE_KEYS);
  const unknownInternal = pickUnknown(internal, INTERNAL_KEYS);
  const client: Record<string, unknown> = { declared_app_id: declaredAppId };
  if (sdkWrapper !== undefined) client.sdk_wrapper = sdkWrapper;
  // The device and attribution context a web client sends once per envelope (docs/data-contract.md,
  // "Client context"): kept for every event of the envelope, like the earlier form's d_info.
  if (isObject(internal.context)) client.context = internal.context;
  if (Object.keys(unknownEnvelope).length > 0) client.envelope_extra = unknownEnvelope;
  if (Object.keys(unknownInternal).length > 0) client.internal_extra = unknownInternal;
  return {
    reasons: [],
    facts: {
      form: 'current',
      line: identifyClient('current', s.sdkName, s.sdkVersion),
      lineVersion: versionParts(s.sdkVersion) ?? [],
      userId: userId as string,
      sessionId: sId as string,
      ...s,
      deviceId: deviceId as string,
      os: os as string,
      tz: tz as string,
      client,
    },
  };
}

/** One current-form log. `__ol` may sit beside `name` or inside `ctx` (real SDKs put it in ctx). */
export function readCurrentEvent(item: unknown, path: string): { event?: RawEvent; reasons: Reason[] } {
  if (!isObject(item)) return { reasons: [{ path, rule: 'type', message: 'a log must be an object' }] };
  const r = new FieldReader(item, path);
  const name = r.string(['name']);
  // The chat samples carry the time as a top-level `ts` (`YYYY-MM-DD HH:mm:ssZ`); `time` wins when
  // both are present.
  const time = r.string(['time', 'ts']);
  // ctx is R (spec 2.1): every real client sends it, `{}` when the event has no context.
  const ctx = r.object('ctx');
  const { props: ctxProps, ol, meta: ctxMeta } = splitCtx(ctx ?? {});
  let online: unknown = item.__ol;
  if (online === undefined && (ol.present || '__ol' in ctxProps)) online = ol.present ? ol.value : ctxProps.__ol;
  if (typeof online !== 'boolean') {
    r.reasons.push({ path: `${path}.__ol`, rule: online === undefined ? 'required' : 'type', message: '__ol must be a boolean' });
  }
  // property is R (spec 2.1): absent or null is `required` for every client. `""` is read here and
  // is a quirk of the Kenkai clients only (`empty_property`, flat-ctx/adapt.ts and quirks/gate.ts).
  const property = item.property;
  if (property === undefined || property === null) {
    r.reasons.push({ path: `${path}.property`, rule: 'required', message: 'property is required (spec 2.1); send the action or title the event names' });
  } else if (typeof property !== 'string') {
    r.reasons.push({ path: `${path}.property`, rule: 'type', message: 'property must be a string' });
  }
  let meta: unknown = item.meta;
  if (meta === undefined && (ctxMeta.present || 'meta' in ctxProps)) meta = ctxMeta.present ? ctxMeta.value : ctxProps.meta;
  // With a name and a ctx the event can still be validated: its faults in the log's own fields are
  // reported together with those in its properties (one answer names them all).
  if (name === undefined || ctx === undefined) return { reasons: r.reasons };
  return {
    reasons: r.reasons,
    event: {
      name,
      time: time ?? '',
      online: online as boolean,
      property: typeof property === 'string' ? property : null,
      props: ctxProps,
      meta: meta ?? null,
      declaredBlock: null,
      extra: pickUnknown(item, EVENT_KEYS),
    },
  };
}

interface Taken {
  present: boolean;
  value: unknown;
}

/**
 * `ctx` without `__ol` and `meta` (returned apart), the same as `{ ...ctx }` followed by deleting
 * both: same keys, order and values, `__proto__` kept as data. Built key by key because deleting the
 * (usually first) `__ol` key turns the copy into a slow dictionary-mode object that every later
 * step of the event reads. Symbol keys, which no later step reads, are not copied.
 */
function splitCtx(ctx: Record<string, unknown>): { props: Record<string, unknown>; ol: Taken; meta: Taken } {
  const props: Record<string, unknown> = {};
  const ol: Taken = { present: false, value: undefined };
  const meta: Taken = { present: false, value: undefined };
  const keys = Object.keys(ctx);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const v = ctx[k];
    if (k === '__ol') {
      ol.present = true;
      ol.value = v;
    } else if (k === 'meta') {
      meta.present = true;
      meta.value = v;
    } else if (k === '__proto__') {
      Object.defineProperty(props, k, { value: v, enumerable: true, writable: true, configurable: true });
    } else {
      props[k] = v;
    }
  }
  return { props, ol, meta };
}
