import type { CatalogKind } from '@evp/core';
import type { AggregateCondition, Condition, CountBound, CountOp, Op, Predicate, Window } from '../definition';
import { contractEvent, profileField } from '../language/contract';

/**
 * What a definition (segments inlined) depends on, read from its shape: the event names and catalog
 * kinds whose arrival can change membership, whether time alone can, and whether a user the events
 * table has nothing on (known only from the user catalog, or not at all yet) can be a member.
 */

/** Three-valued truth: a condition's value for a user without events, where the profile decides (`unknown`). */
type Truth = 'true' | 'false' | 'unknown';

const not = (t: Truth): Truth => (t === 'true' ? 'false' : t === 'false' ? 'true' : 'unknown');
const all = (ts: Truth[]): Truth => (ts.includes('false') ? 'false' : ts.every((t) => t === 'true') ? 'true' : 'unknown');
const any = (ts: Truth[]): Truth => (ts.includes('true') ? 'true' : ts.every((t) => t === 'false') ? 'false' : 'unknown');
const truth = (b: boolean): Truth => (b ? 'true' : 'false');

const DEFAULT_COUNT: CountBound = { gte: 1 };

/** A count bound's operator and number (validated: exactly one key). */
export function countBound(c: CountBound | undefined): [CountOp, number] {
  const [op, n] = Object.entries(c ?? DEFAULT_COUNT)[0] as [CountOp, number];
  return [op, n];
}

function countHolds(count: CountBound | undefined, n: number): boolean {
  const [op, bound] = countBound(count);
  return { gte: n >= bound, lte: n <= bound, eq: n === bound, gt: n > bound, lt: n < bound }[op];
}

function numberHolds(op: Op, value: unknown, n: number): boolean {
  if (op === 'in' || op === 'nin') return (value as number[]).includes(n) === (op === 'in');
  const v = value as number;
  const holds: Partial<Record<Op, boolean>> = { eq: n === v, neq: n !== v, gt: n > v, gte: n >= v, lt: n < v, lte: n <= v };
  return holds[op] ?? false;
}

/** An aggregate over no events: sum and count_distinct are 0; avg, min and max have no value, which only neq and nin match. */
function aggregateWithoutEvents(c: AggregateCondition): Truth {
  if (c.aggregate.fn !== 'sum' && c.aggregate.fn !== 'count_distinct') return truth(c.op === 'neq' || c.op === 'nin');
  return truth(numberHolds(c.op, c.value, 0));
}

/**
 * Whether a user with no events can be a member. `false` means every member has events (of the
 * definition's names), so the query can start from them alone; otherwise the users of the user
 * catalog (and every user with any event) are candidates too.
 */
function withoutEvents(c: Condition): Truth {
  if ('all' in c) return all(c.all.map(withoutEvents));
  if ('any' in c) return any(c.any.map(withoutEvents));
  if ('not' in c) return not(withoutEvents(c.not));
  if ('event' in c) return truth(countHolds(c.count, 0));
  if ('aggregate' in c) return aggregateWithoutEvents(c);
  if ('profile' in c) {
    // A client fact comes from the latest event: without events it is absent, which only neq and nin match.
    if (profileField(c.profile)?.source === 'client') return truth(c.op === 'neq' || c.op === 'nin');
    return 'unknown';
  }
  // sequence, first_seen, last_seen, responded need events; references are inlined before this.
  return 'false';
}

/**
 * Whether a user who has events, but none since the earliest start of the definition's windows, can
 * be a member. Event leaves then see no rows (their value without events) and `last_seen` within a
 * window is false; `last_seen` before, client facts and user catalog fields could be anything.
 */
function withoutRecentEvents(c: Condition): Truth {
  if ('all' in c) return all(c.all.map(withoutRecentEvents));
  if ('any' in c) return any(c.any.map(withoutRecentEvents));
  if ('not' in c) return not(withoutRecentEvents(c.not));
  if ('last_seen' in c) return 'within' in c.last_seen ? 'false' : 'unknown';
  if ('first_seen' in c || 'profile' in c) return 'unknown';
  return withoutEvents(c);
}

/** Every leaf of a condition (segments inlined), in order. */
function leaves(c: Condition): Condition[] {
  if ('all' in c) return c.all.flatMap(leaves);
  if ('any' in c) return c.any.flatMap(leaves);
  if ('not' in c) return leaves(c.not);
  return [c];
}

const canonical = (name: string): string => contractEvent(name)?.name ?? name;

function catalogKinds(where: Predicate[] | undefined): CatalogKind[] {
  return (where ?? []).flatMap((p) => ('catalog' in p ? [p.catalog as CatalogKind] : []));
}

/** Names of the events a leaf reads, `*` when it reads every event of the user. */
function leafEvents(c: Condition): string[] {
  if ('event' in c) return [canonical(c.event)];
  if ('aggregate' in c) return [canonical(c.aggregate.event)];
  if ('sequence' in c) return c.sequence.map((s) => canonical(s.event));
  if ('responded' in c) return ['nudge_response'];
  if ('profile' in c) return profileField(c.profile)?.source === 'client' ? ['*'] : [];
  if ('first_seen' in c || 'last_seen' in c) return ['*'];
  return [];
}

function leafCatalogs(c: Condition): CatalogKind[] {
  if ('event' in c) return catalogKinds(c.where);
  if ('aggregate' in c) return catalogKinds(c.aggregate.where);
  if ('sequence' in c) return c.sequence.flatMap((s) => catalogKinds(s.where));
  if ('profile' in c) return profileField(c.profile)?.source === 'catalog' ? ['user'] : [];
  return [];
}

const relative = (w: Window | undefined): boolean => typeof w === 'string';

function leafTimeDriven(c: Condition): boolean {
  // The action log may arrive after the response that names its action: a pass on the schedule
  // catches what the response's own incremental evaluation could not see yet.
  if ('responded' in c && c.responded.tag !== undefined) return true;
  if ('last_seen' in c) return 'before' in c.last_seen || relative(c.last_seen.within);
  if ('first_seen' in c) return relative(c.first_seen.within);
  return 'within' in c && relative(c.within);
}

export interface Dependencies {
  events: string[];
  /** Canonical names of the events the event, aggregate, sequence and responded leaves read, sorted. */
  names: string[];
  catalogs: CatalogKind[];
  timeDriven: boolean;
  /** Users without events may be members: the query starts from every user with events or a user catalog record. */
  everyUser: boolean;
  /** The query joins the latest user catalog records (profile fields, or every user as a candidate). */
  joinsUsers: boolean;
  /**
   * The query reads every event of the user (not only the definition's names): first or last seen,
   * client facts, or every user with an event as a candidate.
   */
  anyEvent: boolean;
  /**
   * Reading every event only since the earliest start of the windows cannot change membership: a
   * user with no event since then is no member, and what is read of the others (last seen, the
   * latest event's client facts) is the same. Not with first_seen (the first event may be older).
   */
  anyEventSinceWindows: boolean;
}

export function dependencies(c: Condition): Dependencies {
  const ls = leaves(c);
  const everyUser = withoutEvents(c) !== 'false';
  const names = new Set(ls.flatMap(leafEvents));
  const kinds = new Set(ls.flatMap(leafCatalogs));
  if (everyUser) kinds.add('user');
  return {
    // Any event can make a user a candidate when users without events can be members.
    events: everyUser || names.has('*') ? ['*'] : [...names].sort(),
    names: [...names].filter((n) => n !== '*').sort(),
    catalogs: [...kinds].sort(),
    timeDriven: ls.some(leafTimeDriven),
    everyUser,
    joinsUsers: everyUser || ls.some((l) => 'profile' in l && profileField(l.profile)?.source === 'catalog'),
    anyEvent: everyUser || names.has('*'),
    anyEventSinceWindows: !everyUser && !ls.some((l) => 'first_seen' in l) && withoutRecentEvents(c) === 'false',
  };
}
