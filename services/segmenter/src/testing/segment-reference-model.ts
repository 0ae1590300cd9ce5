import type { CanonicalEvent } from '@evp/schemas';
import { DateTime, Duration } from 'luxon';
import type { Condition, CountBound, Op, Predicate, PropPredicate, Window } from '@evp/segment-language';

/**
 * The language's semantics written plainly over in-memory events (docs/segments.md), independent of
 * the compiler, for the property test's vocabulary: top-level and `[]` property paths, catalog
 * predicates, every condition kind. Tests hold the compiled SQL to it.
 */
export interface ReferenceData {
  events: CanonicalEvent[];
  /** Latest user catalog record per user id. */
  users: Record<string, Record<string, unknown>>;
  /** Latest record per id, per catalog kind. */
  catalogs: Record<string, Record<string, Record<string, unknown>>>;
  now: number;
}

type Value = unknown;

function windowHolds(time: number, w: Window | undefined, now: number): boolean {
  if (w === undefined) return true;
  if (typeof w === 'string') return time >= backFrom(now, w) && time <= now;
  return time >= Date.parse(w.from) && time < Date.parse(w.to);
}

const backFrom = (now: number, d: string): number => DateTime.fromMillis(now, { zone: 'utc' }).minus(Duration.fromISO(d)).toMillis();

/** Values a path reads (`a.b`, `items[].id`): one, none (absent), or the elements through `[]`. */
function read(obj: Record<string, unknown>, path: string): { many: boolean; values: Value[] } {
  let current: Value[] = [obj];
  let many = false;
  for (const part of path.split('.')) {
    const each = part.endsWith('[]');
    const name = each ? part.slice(0, -2) : part;
    current = current.flatMap((v) => (v !== null && typeof v === 'object' && Object.hasOwn(v, name) ? [(v as Record<string, unknown>)[name]] : []));
    if (each) {
      many = true;
      current = current.flatMap((v) => (Array.isArray(v) ? v : []));
    }
  }
  return { many, values: current.filter((v) => v !== null && v !== undefined) };
}

function compare(v: Value, op: Op, value: unknown): boolean {
  switch (op) {
    case 'eq':
      return v === value;
    case 'in':
      return (value as unknown[]).includes(v);
    case 'gt':
      return (v as number) > (value as number);
    case 'gte':
      return (v as number) >= (value as number);
    case 'lt':
      return (v as number) < (value as number);
    case 'lte':
      return (v as number) <= (value as number);
    case 'contains':
      return Array.isArray(v) ? v.includes(value) : typeof v === 'string' && v.includes(value as string);
    default:
      throw new Error(`no plain comparison for ${op}`);
  }
}

/** An absent value matches only neq and nin; through [] one element must match (neq/nin: none). */
function holds(values: Value[], op: Op, value: unknown): boolean {
  if (op === 'exists') return values.length > 0;
  if (op === 'neq') return !holds(values, 'eq', value);
  if (op === 'nin') return !holds(values, 'in', value);
  return values.some((v) => compare(v, op, value));
}

function countHolds(bound: CountBound | undefined, n: number): boolean {
  const [op, b] = Object.entries(bound ?? { gte: 1 })[0] as [string, number];
  return { gte: n >= b, lte: n <= b, eq: n === b, gt: n > b, lt: n < b }[op] as boolean;
}

export function referenceMembers(definition: Condition, data: ReferenceData, segments: Record<string, Condition> = {}): string[] {
  // Each event once (copies share the id), per user, in time order.
  const unique = [...new Map(data.events.map((e) => [e.event_id, e])).values()];
  const byUser = new Map<string, CanonicalEvent[]>();
  for (const e of unique) byUser.set(e.user_id, [...(byUser.get(e.user_id) ?? []), e]);
  const candidates = new Set([...byUser.keys(), ...Object.keys(data.users)]);

  const predicate = (e: CanonicalEvent, p: Predicate): boolean => {
    if (!('catalog' in p)) return holds(read(e.props, p.prop).values, p.op, p.value);
    const records = data.catalogs[p.catalog] ?? {};
    const matches = (id: Value) =>
      typeof id === 'string' &&
      Object.hasOwn(records, id) &&
      p.where.every((w: PropPredicate) => holds(w.prop === 'id' ? [id] : read(records[id] as Record<string, unknown>, w.prop).values, w.op, w.value));
    return read(e.props, p.via).values.some(matches);
  };
  const matching = (events: CanonicalEvent[], name: string, where: Predicate[] | undefined, w: Window | undefined) =>
    events.filter(
      (e) =>
        e.name === (name === 'action_response' ? 'nudge_response' : name) && windowHolds(e.time, w, data.now) && (where ?? []).every((p) => predicate(e, p)),
    );

  const evaluate = (c: Condition, user: string): boolean => {
    const events = byUser.get(user) ?? [];
    if ('all' in c) return c.all.every((x) => evaluate(x, user));
    if ('any' in c) return c.any.some((x) => evaluate(x, user));
    if ('not' in c) return !evaluate(c.not, user);
    if ('segment' in c) return evaluate(segments[c.segment] as Condition, user);
    if ('event' in c) return countHolds(c.count, matching(events, c.event, c.where, c.within).length);
    if ('aggregate' in c) {
      const { event, where, prop, fn } = c.aggregate;
      const values = matching(events, event, where, c.within).flatMap((e) => read(e.props, prop).values) as number[];
      const sum = values.reduce((s, v) => s + v, 0);
      const result =
        fn === 'sum'
          ? sum
          : fn === 'count_distinct'
            ? new Set(values).size
            : values.length === 0
              ? undefined
              : fn === 'avg'
                ? sum / values.length
                : fn === 'min'
                  ? Math.min(...values)
                  : Math.max(...values);
      return holds(result === undefined ? [] : [result], c.op, c.value);
    }
    if ('sequence' in c) {
      // Greedy: the earliest event for each step, strictly after the step before.
      const inWindow = events.filter((e) => windowHolds(e.time, c.within, data.now)).sort((a, b) => a.time - b.time);
      let step = 0;
      let last = -Infinity;
      for (const e of inWindow) {
        const s = c.sequence[step];
        if (s && e.time > last && matching([e], s.event, s.where, undefined).length > 0) {
          step++;
          last = e.time;
        }
      }
      return step === c.sequence.length;
    }
    const times = events.map((e) => e.time);
    if ('first_seen' in c) return times.length > 0 && windowHolds(Math.min(...times), c.first_seen.within, data.now);
    if ('last_seen' in c) {
      if (times.length === 0) return false;
      const last = Math.max(...times);
      return 'before' in c.last_seen ? last < backFrom(data.now, c.last_seen.before) : windowHolds(last, c.last_seen.within, data.now);
    }
    if ('profile' in c) {
      const latest = [...events].sort((a, b) => a.time - b.time || (a.event_id < b.event_id ? -1 : 1)).at(-1);
      const facts: Record<string, unknown> = latest ? { ...latest } : {};
      const isFact = ['os', 'app_version', 'app_version_code', 'sdk_name', 'sdk_version', 'tz', 'device_id'].includes(c.profile);
      const v = isFact ? facts[c.profile] : data.users[user]?.[c.profile];
      return holds(v === undefined || v === null || v === '' ? [] : [v], c.op, c.value);
    }
    if ('responded' in c) {
      const { response, action_id, inv_id } = c.responded;
      return matching(events, 'nudge_response', [], c.within).some((e) => {
        const [inv, action] = String(e.props.ref).split(':');
        return (
          (response === undefined || e.props.response === response) &&
          (inv_id === undefined || inv === String(inv_id)) &&
          (action_id === undefined || action === String(action_id))
        );
      });
    }
    throw new Error(`no reference semantics for ${JSON.stringify(c)}`);
  };
  return [...candidates].filter((u) => evaluate(definition, u)).sort();
}
