import { userCatalog, type FieldType, type ObjectDef } from '@evp/schemas';
import type {
  AggregateCondition,
  AggregateFn,
  CatalogPredicate,
  Condition,
  EventCondition,
  FirstSeenCondition,
  LastSeenCondition,
  Predicate,
  ProfileCondition,
  PropPredicate,
  RespondedCondition,
  SequenceCondition,
  Window,
} from '../definition';
import { catalogFields, catalogKind, contractEvent, FIELD_NAME, isPathProblem, profileField, resolvePath, type ResolvedPath } from '../language/contract';
import { countBound } from './analysis';
import { APP, Params } from './params';
import { predicate, readColumn, readJson } from './values';
import { backFromNow, inWindow } from './windows';

/**
 * Leaf conditions as SQL. Everything a leaf needs from the user's events is one aggregate column of
 * a pass over `events` grouped by user: over the rows of the definition's event names (`e`, FINAL)
 * for event, aggregate, sequence and responded leaves, over every event of the user (`a`, without
 * FINAL) for first/last seen and client facts. Profile fields are columns of the user catalog
 * subquery; the leaf itself is a boolean over those columns, evaluated per user after the joins.
 */
export class QueryParts {
  readonly params = new Params();
  readonly eventColumns = new Map<string, string>();
  readonly anyEventColumns = new Map<string, string>();
  readonly userColumns = new Map<string, string>();
  /** The window of every leaf reading named events (undefined: all history): the span `e` reads. */
  readonly eventWindows: (Window | undefined)[] = [];
  /** The windows of `last_seen` within: with the ones above, the span `a` may read. */
  readonly lastSeenWindows: Window[] = [];

  /** The alias of an aggregate over the user's events of the definition's names (the same aggregate twice is one column). */
  eventColumn(expr: string, within: Window | undefined): string {
    this.eventWindows.push(within);
    return column(this.eventColumns, expr, 'e');
  }

  /**
   * The alias of an aggregate over every event of the user. Only aggregates a duplicate cannot
   * change (the first and last time, the latest event's values), since this pass reads without FINAL.
   */
  anyEventColumn(expr: string): string {
    return column(this.anyEventColumns, expr, 'a');
  }

  /** The alias of a value of the user's latest user catalog record. */
  userColumn(expr: string): string {
    return column(this.userColumns, expr, 'u');
  }
}

function column(columns: Map<string, string>, expr: string, prefix: string): string {
  let alias = columns.get(expr);
  if (alias === undefined) {
    alias = `${prefix}${columns.size}`;
    columns.set(expr, alias);
  }
  return alias;
}

const SQL_OPS = { gte: '>=', lte: '<=', eq: '=', gt: '>', lt: '<' } as const;

/** A path validation already accepted. */
function path(def: ObjectDef, p: string): ResolvedPath {
  const r = resolvePath(def, p, 'definition');
  if (isPathProblem(r)) throw new Error(`path was not validated: ${r.message}`);
  return r;
}

function contract(name: string): { name: string; def: ObjectDef } {
  const e = contractEvent(name);
  if (!e) throw new Error(`event was not validated: ${name}`);
  return e;
}

/** A predicate over an event's `props`, or a catalog record's `record` (where `id` is its own column). */
function propPredicateSql(p: PropPredicate, def: ObjectDef, column: 'props' | 'record', q: QueryParts): string {
  const read = column === 'record' && p.prop === 'id' ? readColumn('id', { kind: 'scalar', scalar: 'string' }) : readJson(column, path(def, p.prop));
  return predicate(read, p.op, p.value, q.params);
}

/** A catalog predicate: the record the event refers to at `via`, in its latest version, matches `where`. */
function catalogPredicateSql(p: CatalogPredicate, event: ObjectDef, q: QueryParts): string {
  const kind = catalogKind(p.catalog);
  if (!kind) throw new Error(`catalog kind was not validated: ${p.catalog}`);
  const def = catalogFields(kind);
  // Only the app before FINAL (a key column): the predicates must see the latest version alone.
  const where = p.where.map((w) => propPredicateSql(w, def, 'record', q));
  const records = `(SELECT id FROM catalog_${kind} FINAL PREWHERE app_id = ${APP}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''})`;
  const via = readJson('props', path(event, p.via));
  return via.many ? `arrayExists(v -> v IN ${records}, ${via.expr})` : `ifNull(${via.expr} IN ${records}, 0)`;
}

/**
 * SQL true for a row of `events` that is the event, matches every predicate and lies in the window.
 * Also a campaign goal's event (campaigns/report-query.ts), without a window.
 */
export function eventMatch(name: string, where: Predicate[] | undefined, within: Window | undefined, q: QueryParts): string {
  const event = contract(name);
  const parts = [`name = ${q.params.add(event.name, 'String')}`];
  for (const p of where ?? []) parts.push('catalog' in p ? catalogPredicateSql(p, event.def, q) : propPredicateSql(p, event.def, 'props', q));
  if (within !== undefined) parts.push(inWindow('time', within, q.params));
  return parts.join(' AND ');
}

/**
 * The number a numeric property of one row of `events` holds, as SQL (a campaign goal's value,
 * campaigns/report-query.ts): absent is 0, and a property inside an array of objects
 * (`items[].price`) is the sum over the elements. The property was validated as an aggregate `sum`.
 */
export function eventValue(event: string, prop: string): string {
  const read = readJson('props', path(contract(event).def, prop));
  return read.many ? `arraySum(arrayMap(v -> ifNull(toFloat64(v), 0), ${read.expr}))` : `ifNull(toFloat64(${read.expr}), 0)`;
}

/**
 * An event condition without count or window (a campaign's event trigger) as a boolean over one row
 * of `events`, with its parameters (and `{app_id:String}` for catalog predicates).
 */
export function compileEventMatch(event: string, where: Predicate[] | undefined): { sql: string; params: Record<string, unknown> } {
  const q = new QueryParts();
  return { sql: eventMatch(event, where, undefined, q), params: q.params.values };
}

function eventLeaf(c: EventCondition, q: QueryParts): string {
  const count = q.eventColumn(`countIf(${eventMatch(c.event, c.where, c.within, q)})`, c.within);
  const [op, n] = countBound(c.count);
  return `${count} ${SQL_OPS[op]} ${q.params.add(n, 'UInt64')}`;
}

const NUMBER: FieldType = { kind: 'scalar', scalar: 'double' };
const AGGREGATES: Record<AggregateFn, string> = { sum: 'sum', avg: 'avg', min: 'min', max: 'max', count_distinct: 'uniqExact' };

function aggregateLeaf(c: AggregateCondition, q: QueryParts): string {
  const { event, where, prop, fn } = c.aggregate;
  const match = eventMatch(event, where, c.within, q);
  const read = readJson('props', path(contract(event).def, prop));
  // -Array sums (counts, …) the elements of every matching row's array: items[].price.
  const array = read.many ? 'Array' : '';
  const call = AGGREGATES[fn];
  const value = q.eventColumn(`${call}${array}If(${read.expr}, ${match})`, c.within);
  // A sum over nothing is 0; avg, min and max over nothing have no value (NULL).
  return predicate(readColumn(fn === 'sum' ? `ifNull(${value}, 0)` : value, NUMBER), c.op, c.value, q.params);
}

/**
 * Steps in order, each strictly after the one before, the whole sequence inside the window. Each row
 * gets a bit per step it matches; the user's matching rows, sorted by time, are folded greedily: the
 * earliest row that matches the next step and is later than the step before advances. Taking the
 * earliest match at every step never loses a sequence, and rows of the same millisecond are never
 * ordered, so the result does not depend on how ties happen to be sorted. windowFunnel and
 * sequenceMatch do not give that: on chdb, strict_increase missed a cart, cart, checkout sequence
 * whose second cart shared the checkout's millisecond, and sequenceMatch orders ties as they arrive.
 */
function sequenceLeaf(c: SequenceCondition, q: QueryParts): string {
  const bits = c.sequence.map((s, i) => `toUInt32(${eventMatch(s.event, s.where, undefined, q)}) * ${2 ** i}`).join(' + ');
  const mask = c.within === undefined ? `(${bits})` : `if(${inWindow('time', c.within, q.params)}, ${bits}, 0)`;
  const n = c.sequence.length;
  const fold =
    `arrayFold((acc, x) -> if(acc.1 < ${n} AND bitTest(x.2, acc.1) AND x.1 > acc.2, (toUInt8(acc.1 + 1), x.1), acc), ` +
    `arraySort(groupArrayIf((toUnixTimestamp64Milli(time), ${mask}), ${mask} != 0)), (toUInt8(0), toInt64(-9223372036854775807))).1`;
  return `${q.eventColumn(fold, c.within)} = ${n}`;
}

function firstSeenLeaf(c: FirstSeenCondition, q: QueryParts): string {
  return `ifNull(${inWindow(q.anyEventColumn('minOrNull(time)'), c.first_seen.within, q.params)}, 0)`;
}

function lastSeenLeaf(c: LastSeenCondition, q: QueryParts): string {
  const last = q.anyEventColumn('maxOrNull(time)');
  if ('before' in c.last_seen) return `ifNull(${last} < ${backFromNow(c.last_seen.before, q.params)}, 0)`;
  q.lastSeenWindows.push(c.last_seen.within);
  return `ifNull(${inWindow(last, c.last_seen.within, q.params)}, 0)`;
}

/**
 * A client fact is the value of the user's latest event (ties on time broken by event id, so every
 * evaluation picks the same row); an empty string is no value. A user catalog field is read from
 * the latest record.
 */
function profileLeaf(c: ProfileCondition, q: QueryParts): string {
  const field = profileField(c.profile);
  if (!field || !FIELD_NAME.test(field.name)) throw new Error(`profile field was not validated: ${c.profile}`);
  if (field.source === 'client') {
    const latest = `argMax(tuple(${field.name}), (time, event_id)).1`;
    const text = field.type.kind === 'scalar' && field.type.scalar === 'string';
    const fact = text ? `nullIf(${latest}, '')` : latest;
    return predicate(readColumn(q.anyEventColumn(fact), field.type), c.op, c.value, q.params);
  }
  const read = readJson('record', path(userCatalog, field.name));
  return predicate(readColumn(q.userColumn(read.expr), field.type), c.op, c.value, q.params);
}

/**
 * The user's nudge feedback: `nudge_response` events; `ref` is `<inv_id>:<action_id>` (docs/actions.md).
 * A tag is the created action's (the action log, `actions_log`): the response's (user, ref) must be
 * an action created for that user with that tag.
 */
function respondedLeaf(c: RespondedCondition, q: QueryParts): string {
  const nudge = contract('nudge_response');
  const { response, action_id, inv_id, tag } = c.responded;
  const where: Predicate[] = response === undefined ? [] : [{ prop: 'response', op: 'eq', value: response }];
  const parts = [eventMatch(nudge.name, where, c.within, q)];
  const ref = (i: number, id: number) => `splitByChar(':', props.ref::String)[${i}] = ${q.params.add(String(id), 'String')}`;
  if (inv_id !== undefined) parts.push(ref(1, inv_id));
  if (action_id !== undefined) parts.push(ref(2, action_id));
  if (tag !== undefined) {
    const tagged = `SELECT user_id, ref FROM actions_log PREWHERE app_id = ${APP} WHERE kind = 'created' AND has(tags, ${q.params.add(tag, 'String')})`;
    parts.push(`(user_id, props.ref::String) IN (${tagged})`);
  }
  return `${q.eventColumn(`countIf(${parts.join(' AND ')})`, c.within)} > 0`;
}

/** A condition (segments already inlined) as a boolean SQL expression over the query's columns. */
export function conditionSql(c: Condition, q: QueryParts): string {
  if ('all' in c) return `(${c.all.map((x) => conditionSql(x, q)).join(' AND ')})`;
  if ('any' in c) return `(${c.any.map((x) => conditionSql(x, q)).join(' OR ')})`;
  if ('not' in c) return `NOT ${conditionSql(c.not, q)}`;
  return `(${leafSql(c, q)})`;
}

function leafSql(c: Condition, q: QueryParts): string {
  if ('event' in c) return eventLeaf(c, q);
  if ('aggregate' in c) return aggregateLeaf(c, q);
  if ('sequence' in c) return sequenceLeaf(c, q);
  if ('first_seen' in c) return firstSeenLeaf(c, q);
  if ('last_seen' in c) return lastSeenLeaf(c, q);
  if ('profile' in c) return profileLeaf(c, q);
  if ('responded' in c) return respondedLeaf(c, q);
  throw new Error(`condition was not validated or not inlined: ${JSON.stringify(c)}`);
}
