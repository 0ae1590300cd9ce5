import type { CanonicalEvent } from '../../canonical';
import type { EventDef } from '../../dsl/types';
import type { ValidationResult } from '../../dsl/validate';
import type { Reason } from '../../rules/registry';
import { eventId } from '../event-id';
import { correctedTime } from '../sent-at';
import type { EventDraft } from './draft';

/**
 * The canonical event of a draft every check passed: unknown props kept under `__extra`, the log's
 * unknown keys under `client.event_extra`, the id a hash of what identifies the event (event-id.ts).
 */
export function buildEvent(d: EventDraft): CanonicalEvent {
  const { raw, facts, ctx, sent } = d;
  const def = d.def as EventDef;
  const validated = d.validated as ValidationResult;
  const time = d.time as number;
  const props = hasOwnKeys(validated.unknown) ? { ...validated.value, __extra: validated.unknown } : validated.value;
  const client = hasOwnKeys(raw.extra) ? { ...(facts.client ?? {}), event_extra: raw.extra } : facts.client;
  return {
    event_id: eventId({
      appId: ctx.appId,
      userId: facts.userId,
      sessionId: facts.sessionId,
      name: def.event,
      time,
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
    property: d.adapted ? d.adapted.property : raw.property,
    time,
    online: raw.online,
    received_at: ctx.receivedAt,
    sent_at: sent.sentAt,
    corrected_time: correctedTime(time, ctx.receivedAt, sent.sentAt),
    request_id: ctx.requestId,
    pseudonym_key: null,
    envelope: facts.form,
    props,
    meta: raw.meta,
    client,
    warnings: d.warnings as Reason[],
  };
}

/** `Object.keys(o).length > 0` without the array (twice per event). */
function hasOwnKeys(o: object): boolean {
  for (const k in o) if (Object.hasOwn(o, k)) return true;
  return false;
}
