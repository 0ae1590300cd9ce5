import { FUTURE_TIME_TOLERANCE_MS, futureTimeWarning } from '../future-time';
import { hasSubMillisecondDigits, parseEventTime } from '../time';
import type { EventDraft } from './draft';

/** Where a time reason points; built only when there is one (most events have none). */
function timePath(d: EventDraft): string {
  return `${d.path}.${d.facts.form === 'current' ? 'time' : 'ts'}`;
}

/** The log's time as epoch ms (the current form's in the envelope tz), with its precision and future-time warnings. */
export function readTime(d: EventDraft): boolean {
  const { raw, facts } = d;
  const time = parseEventTime(raw.time, facts.form === 'current' ? facts.tz : undefined);
  d.time = time;
  if (time === undefined) {
    // A time the reader already reported missing or mistyped is not reported twice.
    if (raw.time !== '')
      d.reasons.push({ path: timePath(d), rule: 'time_format', message: 'time must be YYYY-MM-DD HH:mm:ss.SSS (with envelope tz) or ISO 8601 with an offset' });
    return true;
  }
  if (hasSubMillisecondDigits(raw.time)) {
    d.quirks.push({ path: timePath(d), rule: 'time_precision', message: 'time has digits below the millisecond; read to the millisecond' });
  }
  if (time - d.ctx.receivedAt > FUTURE_TIME_TOLERANCE_MS) {
    const future = futureTimeWarning(time, d.ctx.receivedAt, timePath(d));
    if (future) d.quirks.push(future);
  }
  return true;
}
