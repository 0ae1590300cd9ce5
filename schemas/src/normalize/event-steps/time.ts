import { futureTimeWarning } from '../future-time';
import { hasSubMillisecondDigits, parseEventTime } from '../time';
import type { EventDraft } from './draft';

/** The log's time as epoch ms (the current form's in the envelope tz), with its precision and future-time warnings. */
export function readTime(d: EventDraft): boolean {
  const { raw, facts } = d;
  const timePath = `${d.path}.${facts.form === 'current' ? 'time' : 'ts'}`;
  const time = parseEventTime(raw.time, facts.form === 'current' ? facts.tz : undefined);
  d.time = time;
  if (time === undefined) {
    // A time the reader already reported missing or mistyped is not reported twice.
    if (raw.time !== '')
      d.reasons.push({ path: timePath, rule: 'time_format', message: 'time must be YYYY-MM-DD HH:mm:ss.SSS (with envelope tz) or ISO 8601 with an offset' });
    return true;
  }
  if (hasSubMillisecondDigits(raw.time)) {
    d.quirks.push({ path: timePath, rule: 'time_precision', message: 'time has digits below the millisecond; read to the millisecond' });
  }
  const future = futureTimeWarning(time, d.ctx.receivedAt, timePath);
  if (future) d.quirks.push(future);
  return true;
}
