import { eventDef, type FieldType } from '@evp/schemas';
import { AGGREGATE_FNS } from '../definition';
import { contractEvent, isPathProblem, profileField, profileFieldNames, resolvePath, valueClass } from './contract';
import { article, checkOpValue, checkScalar } from './operators';
import { checkWhere, onlyKeys, stringAt } from './predicates';
import { at, isObject, jsonType, LIMITS, type Reasons } from './rules';
import { checkCount, checkDuration, checkWindow } from './windows';

/** The keys of each condition kind; the first is the one that names the kind. */
const KINDS: Readonly<Record<string, readonly string[]>> = {
  all: ['all'],
  any: ['any'],
  not: ['not'],
  event: ['event', 'where', 'count', 'within'],
  aggregate: ['aggregate', 'op', 'value', 'within'],
  sequence: ['sequence', 'within'],
  first_seen: ['first_seen'],
  last_seen: ['last_seen'],
  profile: ['profile', 'op', 'value'],
  responded: ['responded', 'within'],
  segment: ['segment'],
};
const KIND_NAMES = Object.keys(KINDS);

/** A `{"segment": id}` met on the way, where. */
export interface SegmentRef {
  path: string;
  id: string;
}

/** One walk over a definition: its reasons, leaf count and segment references. */
export class ConditionWalk {
  leaves = 0;
  readonly refs: SegmentRef[] = [];

  constructor(readonly reasons: Reasons) {}

  condition(path: string, node: unknown, depth: number): void {
    const p = this.reasons;
    if (!isObject(node)) return p.add(path, 'type', `a condition must be an object, got ${jsonType(node)}`);
    const kinds = Object.keys(node).filter((k) => Object.hasOwn(KINDS, k));
    if (kinds.length !== 1) {
      const why = kinds.length === 0 ? 'has none of their keys' : `has the keys of several: ${kinds.join(', ')}`;
      return p.add(path, 'condition_kind', `a condition is exactly one of ${KIND_NAMES.join(', ')}; this one ${why}`);
    }
    const kind = kinds[0] as string;
    onlyKeys(p, path, node, KINDS[kind] as readonly string[], `a ${kind} condition`);
    if (kind === 'all' || kind === 'any' || kind === 'not') return this.combination(path, node, kind, depth);
    this.leaves++;
    switch (kind) {
      case 'event':
        return this.event(path, node, true);
      case 'aggregate':
        return this.aggregate(path, node);
      case 'sequence':
        return this.sequence(path, node);
      case 'first_seen':
        return this.firstSeen(path, node);
      case 'last_seen':
        return this.lastSeen(path, node);
      case 'profile':
        return this.profile(path, node);
      case 'responded':
        return this.responded(path, node);
      default: {
        const id = stringAt(p, path, node, 'segment');
        if (id !== undefined) this.refs.push({ path: at(path, 'segment'), id });
      }
    }
  }

  private combination(path: string, node: Record<string, unknown>, kind: 'all' | 'any' | 'not', depth: number): void {
    const here = at(path, kind);
    if (depth >= LIMITS.depth) return this.reasons.add(here, 'max_depth', `conditions nest at most ${LIMITS.depth} deep`);
    if (kind === 'not') return this.condition(here, node.not, depth + 1);
    const list = node[kind];
    if (!Array.isArray(list)) return this.reasons.add(here, 'type', `${kind} must be an array of conditions, got ${jsonType(list)}`);
    if (list.length === 0) return this.reasons.add(here, 'min_items', `${kind} needs at least one condition`);
    list.forEach((c, i) => this.condition(at(here, i), c, depth + 1));
  }

  /** An event condition, or (`full` false) a sequence step: event and where only. */
  private event(path: string, node: Record<string, unknown>, full: boolean): void {
    const event = this.eventName(path, node);
    if (event && node.where !== undefined) checkWhere(this.reasons, at(path, 'where'), node.where, event.def, `event ${event.name}`, true);
    if (!full) return;
    if (node.count !== undefined) checkCount(this.reasons, at(path, 'count'), node.count);
    if (node.within !== undefined) checkWindow(this.reasons, at(path, 'within'), node.within);
  }

  private eventName(path: string, node: Record<string, unknown>) {
    const name = stringAt(this.reasons, path, node, 'event');
    if (name === undefined) return undefined;
    const event = contractEvent(name);
    if (!event) this.reasons.add(at(path, 'event'), 'unknown_event', `${name} is not an event of the data contract (docs/reference)`);
    return event;
  }

  private aggregate(path: string, node: Record<string, unknown>): void {
    const p = this.reasons;
    const here = at(path, 'aggregate');
    const agg = node.aggregate;
    if (!isObject(agg)) return p.add(here, 'type', `aggregate must be an object {event, where, prop, fn}, got ${jsonType(agg)}`);
    onlyKeys(p, here, agg, ['event', 'where', 'prop', 'fn'], 'an aggregate');
    const event = this.eventName(here, agg);
    if (event && agg.where !== undefined) checkWhere(p, at(here, 'where'), agg.where, event.def, `event ${event.name}`, true);
    const fn = stringAt(p, here, agg, 'fn');
    if (fn !== undefined && !(AGGREGATE_FNS as readonly string[]).includes(fn)) {
      p.add(at(here, 'fn'), 'unknown_fn', `${fn} is not an aggregate function: one of ${AGGREGATE_FNS.join(', ')}`);
    }
    const prop = stringAt(p, here, agg, 'prop');
    if (event && prop !== undefined) {
      const resolved = resolvePath(event.def, prop, `event ${event.name}`);
      if (isPathProblem(resolved)) p.add(at(here, 'prop'), resolved.rule, resolved.message);
      else {
        const cls = valueClass(resolved.type);
        const fits = fn === 'count_distinct' ? ['string', 'number', 'boolean', 'enum'].includes(cls) : cls === 'number';
        if (fn !== undefined && (AGGREGATE_FNS as readonly string[]).includes(fn) && !fits) {
          const needs = fn === 'count_distinct' ? 'a string, number, boolean or enum' : 'a number';
          p.add(at(here, 'prop'), 'aggregate_type', `${fn} needs ${needs}: ${prop} is ${article(cls)}`);
        }
      }
    }
    const number: FieldType = { kind: 'scalar', scalar: 'double' };
    if (node.op === 'exists' || node.op === 'contains') {
      p.add(at(path, 'op'), 'op_type', `${node.op} does not apply to an aggregate (a number): use eq, neq, in, nin, gt, gte, lt, lte`);
    } else checkOpValue(p, path, node, { type: number, many: false, label: 'the aggregate' });
    if (node.within !== undefined) checkWindow(p, at(path, 'within'), node.within);
  }

  private sequence(path: string, node: Record<string, unknown>): void {
    const p = this.reasons;
    const here = at(path, 'sequence');
    const steps = node.sequence;
    if (!Array.isArray(steps)) return p.add(here, 'type', `sequence must be an array of steps, got ${jsonType(steps)}`);
    if (steps.length < 2) p.add(here, 'min_items', 'a sequence needs at least two steps (one step is an event condition)');
    if (steps.length > LIMITS.steps) return p.add(here, 'max_items', `a sequence has at most ${LIMITS.steps} steps`);
    steps.forEach((step, i) => {
      const at_ = at(here, i);
      if (!isObject(step)) return p.add(at_, 'type', `a step must be an object {event, where}, got ${jsonType(step)}`);
      for (const key of Object.keys(step)) {
        if (key === 'count' || key === 'within')
          p.add(at(at_, key), 'unknown_key', `a sequence step has no ${key}: the sequence's within applies to every step`);
        else if (key !== 'event' && key !== 'where') p.add(at(at_, key), 'unknown_key', `a sequence step has no key ${key} (its keys: event, where)`);
      }
      this.event(at_, step, false);
    });
    if (node.within !== undefined) checkWindow(p, at(path, 'within'), node.within);
  }

  private firstSeen(path: string, node: Record<string, unknown>): void {
    const here = at(path, 'first_seen');
    const v = node.first_seen;
    if (!isObject(v)) return this.reasons.add(here, 'type', `first_seen must be {"within": …}, got ${jsonType(v)}`);
    onlyKeys(this.reasons, here, v, ['within'], 'first_seen');
    if (v.within === undefined) return this.reasons.add(at(here, 'within'), 'required', 'within is required');
    checkWindow(this.reasons, at(here, 'within'), v.within);
  }

  private lastSeen(path: string, node: Record<string, unknown>): void {
    const here = at(path, 'last_seen');
    const v = node.last_seen;
    if (!isObject(v)) return this.reasons.add(here, 'type', `last_seen must be {"within": …} or {"before": DURATION}, got ${jsonType(v)}`);
    onlyKeys(this.reasons, here, v, ['within', 'before'], 'last_seen');
    if (v.within !== undefined && v.before !== undefined) {
      return this.reasons.add(at(here, 'before'), 'unknown_key', 'last_seen takes within or before, not both');
    }
    if (v.within !== undefined) return checkWindow(this.reasons, at(here, 'within'), v.within);
    if (v.before !== undefined) return checkDuration(this.reasons, at(here, 'before'), v.before);
    this.reasons.add(here, 'required', 'last_seen needs within (a window) or before (a duration)');
  }

  private profile(path: string, node: Record<string, unknown>): void {
    const name = stringAt(this.reasons, path, node, 'profile');
    if (name === undefined) return;
    const field = profileField(name);
    if (!field) {
      return this.reasons.add(at(path, 'profile'), 'unknown_field', `${name} is not a profile field: one of ${profileFieldNames().join(', ')}`);
    }
    checkOpValue(this.reasons, path, node, { type: field.type, many: false, label: name });
  }

  private responded(path: string, node: Record<string, unknown>): void {
    const p = this.reasons;
    const here = at(path, 'responded');
    const r = node.responded;
    if (!isObject(r)) return p.add(here, 'type', `responded must be an object {response, action_id, inv_id}, got ${jsonType(r)}`);
    onlyKeys(p, here, r, ['response', 'action_id', 'inv_id', 'tag'], 'responded');
    const responseType = eventDef('nudge_response')?.fields.response?.type;
    if (r.response !== undefined && responseType) checkScalar(p, at(here, 'response'), r.response, responseType, 'response');
    for (const key of ['action_id', 'inv_id'] as const) {
      const v = r[key];
      if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 2_147_483_647)) {
        p.add(at(here, key), 'id_value', `${key} must be an integer from 0 to 2147483647, got ${typeof v === 'number' ? v : jsonType(v)}`);
      }
    }
    if (r.tag !== undefined && (typeof r.tag !== 'string' || r.tag.length === 0 || r.tag.length > 256)) {
      p.add(at(here, 'tag'), 'type', `tag must be a string of 1–256 characters, got ${jsonType(r.tag)}`);
    }
    if (node.within !== undefined) checkWindow(p, at(path, 'within'), node.within);
  }
}
