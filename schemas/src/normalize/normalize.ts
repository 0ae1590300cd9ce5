import type { RejectionReason } from '@evp/core';
import type { CanonicalEvent, IngestContext } from '../canonical';
import { validateObject } from '../dsl/validate';
import { eventDef } from '../events/registry';
import { readCurrentEnvelope, readCurrentEvent } from './current-form';
import { looksEarlier, readEarlierEnvelope, readEarlierEvent } from './earlier-form';
import { eventId } from './event-id';
import { isObject } from './fields';
import { parseEventTime } from './time';
import {
  DEFAULT_NORMALIZE_OPTIONS,
  type EnvelopeFacts,
  type NormalizeOptions,
  type NormalizeResult,
  type RawEvent,
  type Rejection,
} from './types';

/**
 * Both envelope forms → canonical events. A body is one envelope or an array of envelopes. Never
 * throws: every event ends up accepted or in exactly one rejection, and rejections count the events
 * they stand for, so `events in = accepted + Σ rejected.event_count`.
 */
export function normalizeUpload(
  body: unknown,
  ctx: IngestContext,
  options: NormalizeOptions = DEFAULT_NORMALIZE_OPTIONS,
): NormalizeResult {
  const result: NormalizeResult = { accepted: [], rejected: [] };
  const envelopes = Array.isArray(body) ? body : [body];
  envelopes.forEach((env, i) => {
    const path = Array.isArray(body) ? `$[${i}]` : '$';
    normalizeEnvelope(env, Array.isArray(body) ? i : null, path, ctx, options, result);
  });
  return result;
}

function normalizeEnvelope(
  env: unknown,
  envelopeIndex: number | null,
  path: string,
  ctx: IngestContext,
  options: NormalizeOptions,
  out: NormalizeResult,
) {
  const envelopeRejection = (errors: RejectionReason[]): Rejection => ({
    kind: 'envelope_violation',
    errors,
    payload: env,
    event_count: isObject(env) && Array.isArray(env.data) ? Math.max(env.data.length, 1) : 1,
    envelope_index: envelopeIndex,
    event_index: null,
    event_name: null,
  });
  if (!isObject(env)) {
    out.rejected.push(envelopeRejection([{ path, rule: 'type', message: 'an envelope must be an object' }]));
    return;
  }
  const earlier = looksEarlier(env);
  const { facts, errors } = earlier ? readEarlierEnvelope(env, path) : readCurrentEnvelope(env, path);
  if (!facts) {
    out.rejected.push(envelopeRejection(errors));
    return;
  }
  (env.data as unknown[]).forEach((item, j) => {
    const eventPath = `${path}.data[${j}]`;
    const reject = (kind: Rejection['kind'], errs: RejectionReason[], name: string | null): void => {
      out.rejected.push({ kind, errors: errs, payload: item, event_count: 1, envelope_index: envelopeIndex, event_index: j, event_name: name });
    };
    const size = JSON.stringify(item)?.length ?? 0;
    if (size > options.maxEventChars) {
      reject('size_violation', [{ path: eventPath, rule: 'max_size', message: `event is ${size} characters; the limit is ${options.maxEventChars}` }], null);
      return;
    }
    const read = earlier ? readEarlierEvent(item, eventPath) : readCurrentEvent(item, eventPath);
    if (!read.event) {
      reject('schema_violation', read.errors, null);
      return;
    }
    const made = toCanonical(read.event, facts, ctx, eventPath);
    if ('errors' in made) reject('schema_violation', made.errors, read.event.name);
    else out.accepted.push({ event: made.event, warnings: [...facts.warnings, ...made.warnings] });
  });
}

function toCanonical(
  raw: RawEvent,
  facts: EnvelopeFacts,
  ctx: IngestContext,
  path: string,
): { event: CanonicalEvent; warnings: RejectionReason[] } | { errors: RejectionReason[] } {
  const def = eventDef(raw.name);
  const namePath = `${path}.${facts.form === 'current' ? 'name' : 'type'}`;
  if (!def) return { errors: [{ path: namePath, rule: 'unknown_event', message: `${raw.name} is not a known event type` }] };
  const errors: RejectionReason[] = [];
  if (raw.declaredBlock !== null && raw.declaredBlock !== def.block) {
    errors.push({
      path: `${path}.block`,
      rule: 'block_mismatch',
      message: `${raw.name} belongs to block ${def.block}, not ${raw.declaredBlock}`,
    });
  }
  const timePath = `${path}.${facts.form === 'current' ? 'time' : 'ts'}`;
  const time = parseEventTime(raw.time, facts.form === 'current' ? facts.tz : undefined);
  if (time === undefined) {
    errors.push({ path: timePath, rule: 'time_format', message: 'time must be YYYY-MM-DD HH:mm:ss.SSS (with envelope tz) or ISO 8601 with an offset' });
  }
  const propsPath = `${path}.${facts.form === 'current' ? 'ctx' : 'props'}`;
  const validated = validateObject(def, raw.props, propsPath);
  errors.push(...validated.errors);
  if (errors.length > 0) return { errors };
  const props = Object.keys(validated.unknown).length > 0 ? { ...validated.value, __extra: validated.unknown } : validated.value;
  const client =
    Object.keys(raw.extra).length > 0 ? { ...(facts.client ?? {}), event_extra: raw.extra } : facts.client;
  const event: CanonicalEvent = {
    event_id: eventId({
      appId: ctx.appId,
      userId: facts.userId,
      sessionId: facts.sessionId,
      name: def.event,
      time: time as number,
      content: { property: raw.property, props: raw.props, meta: raw.meta },
    }),
    app_id: ctx.appId,
    user_id: facts.userId,
    session_id: facts.sessionId,
    session_start: facts.sessionStart,
    session_end: facts.sessionEnd,
    device_id: facts.deviceId,
    os: facts.os,
    sdk_name: facts.sdkName,
    sdk_version: facts.sdkVersion,
    app_version: facts.appVersion,
    app_version_code: facts.appVersionCode,
    tz: facts.tz,
    block: def.block,
    name: def.event,
    sent_name: raw.name === def.event ? null : raw.name,
    property: raw.property,
    time: time as number,
    online: raw.online,
    received_at: ctx.receivedAt,
    request_id: ctx.requestId,
    envelope: facts.form,
    props,
    meta: raw.meta,
    client,
  };
  return { event, warnings: validated.warnings };
}
