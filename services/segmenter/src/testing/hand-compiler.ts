import type { CompiledSegment, EventCondition } from '@evp/segment-language';
import type { Segment } from '../segments';

/** Seconds of an ISO 8601 duration of one unit: `P2D`, `PT3H`, `PT5M`, `PT30S`. */
function seconds(duration: string): number {
  const m = /^P(?:(\d+)D|T(?:(\d+)H|(\d+)M|(\d+)S))$/.exec(duration);
  if (!m) throw new Error(`hand compiler: unsupported duration ${duration}`);
  const [, d, h, min, s] = m;
  return Number(d ?? 0) * 86_400 + Number(h ?? 0) * 3_600 + Number(min ?? 0) * 60 + Number(s ?? 0);
}

/**
 * A hand-written compiler for the engine's tests, standing in for @evp/segment-language's compiler: it knows one
 * condition, "performed EVENT at least N times within a relative window (or ever)", and writes the
 * query the way the real compiler must (every literal a parameter, the evaluation's parameters as
 * compiled.ts names them). The definition's user input never becomes SQL text.
 */
export function handCompile(segment: Segment): CompiledSegment {
  const c = segment.definition as EventCondition;
  if (typeof c.event !== 'string' || (c.within !== undefined && typeof c.within !== 'string'))
    throw new Error('hand compiler: only {event, count: {gte}, within: duration}');
  const window = c.within === undefined ? '' : " AND time >= {now:DateTime64(3,'UTC')} - toIntervalSecond({p2:UInt32}) AND time <= {now:DateTime64(3,'UTC')}";
  return {
    sql:
      'SELECT user_id FROM events FINAL WHERE app_id = {app_id:String} AND (NOT {scoped:UInt8} OR has({users:Array(String)}, user_id))' +
      ` AND name = {p0:String}${window} GROUP BY user_id HAVING count() >= {p1:UInt32}`,
    params: { p0: c.event, p1: c.count?.gte ?? 1, ...(c.within === undefined ? {} : { p2: seconds(c.within) }) },
    events: [c.event],
    catalogs: [],
    timeDriven: c.within !== undefined,
    segments: [],
  };
}
