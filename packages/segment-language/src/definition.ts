/**
 * The segment definition language (docs/segments.md), as JSON. A definition is one condition;
 * conditions combine with all / any / not. These types are what a definition is once validated
 * (language/validate.ts turns unknown JSON into one, or into reasons with paths).
 */

/** Comparison operators of predicates, profile and aggregate conditions. */
export const OPS = ['eq', 'neq', 'in', 'nin', 'gt', 'gte', 'lt', 'lte', 'contains', 'exists'] as const;
export type Op = (typeof OPS)[number];

/** Count bounds of an event condition: exactly one key. */
export const COUNT_OPS = ['gte', 'lte', 'eq', 'gt', 'lt'] as const;
export type CountOp = (typeof COUNT_OPS)[number];
export type CountBound = Partial<Record<CountOp, number>>;

/**
 * A time window: an ISO 8601 duration back from now (`"P30D"`, `"PT2H"`), or absolute bounds.
 * Relative: [now − duration, now]; absolute: [from, to). Absent = all history.
 */
export type Window = string | { from: string; to: string };

/** A predicate over an event's properties (dotted paths, `[]` for any element of an array). */
export interface PropPredicate {
  prop: string;
  op: Op;
  value?: unknown;
}

/** Inside an event condition's `where`: the event refers (at `via`) to a catalog record whose latest version matches. */
export interface CatalogPredicate {
  catalog: string;
  via: string;
  where: PropPredicate[];
}

export type Predicate = PropPredicate | CatalogPredicate;

export interface EventCondition {
  /** Canonical event name; `action_response` and `nudge_response` are one name. */
  event: string;
  where?: Predicate[];
  /** Default `{gte: 1}`; `{eq: 0}` = did not do it. */
  count?: CountBound;
  within?: Window;
}

export const AGGREGATE_FNS = ['sum', 'avg', 'min', 'max', 'count_distinct'] as const;
export type AggregateFn = (typeof AGGREGATE_FNS)[number];

export interface AggregateCondition {
  aggregate: { event: string; where?: Predicate[]; prop: string; fn: AggregateFn };
  op: Op;
  value: unknown;
  within?: Window;
}

export interface SequenceCondition {
  /** Event conditions without count, in this order for the same user, the whole sequence inside the window. */
  sequence: Omit<EventCondition, 'count' | 'within'>[];
  within?: Window;
}

export interface FirstSeenCondition {
  first_seen: { within: Window };
}

export interface LastSeenCondition {
  last_seen: { within: Window } | { before: string };
}

/** The user's latest user-catalog record field, or a client fact from the user's latest event. */
export interface ProfileCondition {
  profile: string;
  op: Op;
  value?: unknown;
}

/**
 * The user responded to a nudge (a `nudge_response` event) with every field given: `response`, and the
 * action's ids as integers (`ref` is `<inv_id>:<action_id>`, docs/actions.md), and `tag`, one of the
 * tags of the action responded to (the action log, `actions_log`).
 */
export interface RespondedCondition {
  responded: { response?: string; action_id?: number; inv_id?: number; tag?: string };
  within?: Window;
}

export interface SegmentRefCondition {
  segment: string;
}

export type Condition =
  | { all: Condition[] }
  | { any: Condition[] }
  | { not: Condition }
  | EventCondition
  | AggregateCondition
  | SequenceCondition
  | FirstSeenCondition
  | LastSeenCondition
  | ProfileCondition
  | RespondedCondition
  | SegmentRefCondition;
