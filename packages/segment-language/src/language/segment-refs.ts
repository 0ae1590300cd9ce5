import type { Condition, SegmentRefCondition } from '../definition';
import { segmentRefs } from '../references';
import type { SegmentRef } from './conditions';
import { LIMITS, type Reasons } from './rules';

/** Other segments' definitions of the same app, by id: undefined when there is no such segment. */
export type DefinitionLookup = (id: string) => Condition | undefined;

/** The ids a definition refers to directly (`{"segment": id}` anywhere in it), in order. */
const isRef = (c: Condition): c is SegmentRefCondition => 'segment' in c;

/**
 * The first cycle reachable from `id` given the ids that led to it (`trail`), as the ids in order
 * with the first repeated at the end (`[a, b, a]`).
 */
function findCycle(id: string, trail: string[], lookup: DefinitionLookup, done: Set<string>): string[] | undefined {
  const seen = trail.indexOf(id);
  if (seen >= 0) return [...trail.slice(seen), id];
  if (done.has(id)) return undefined;
  const def = lookup(id);
  if (def) {
    for (const next of segmentRefs(def)) {
      const cycle = findCycle(next, [...trail, id], lookup, done);
      if (cycle) return cycle;
    }
  }
  done.add(id);
  return undefined;
}

/** Leaf conditions of a definition with every reference inlined (a reference that cannot be inlined counts 1). */
function inlinedLeaves(c: Condition, lookup: DefinitionLookup, trail: string[]): number {
  if ('all' in c) return c.all.reduce((n, x) => n + inlinedLeaves(x, lookup, trail), 0);
  if ('any' in c) return c.any.reduce((n, x) => n + inlinedLeaves(x, lookup, trail), 0);
  if ('not' in c) return inlinedLeaves(c.not, lookup, trail);
  if (isRef(c)) {
    const def = trail.includes(c.segment) ? undefined : lookup(c.segment);
    return def ? inlinedLeaves(def, lookup, [...trail, c.segment]) : 1;
  }
  return 1;
}

/**
 * The references of a definition being validated: each must name a segment of the app, and none may
 * lead back to where it started. `selfId` is the segment the definition belongs to (an update), so
 * a reference that comes back to it is a cycle; on create nothing can refer to the new segment yet.
 */
export function checkSegmentRefs(reasons: Reasons, refs: SegmentRef[], lookup: DefinitionLookup, selfId: string | undefined, ownLeaves: number): void {
  const self = selfId ?? '(this segment)';
  let total = ownLeaves;
  for (const ref of refs) {
    if (ref.id === selfId) {
      reasons.add(ref.path, 'segment_cycle', `segment cycle: ${self} → ${self} (a segment cannot refer to itself)`);
      continue;
    }
    const def = lookup(ref.id);
    if (!def) {
      reasons.add(ref.path, 'unknown_segment', `no segment ${ref.id} in this app`);
      continue;
    }
    // The trail starts at the definition being validated: a path back to selfId ends there, before
    // the old definition stored under that id is read.
    const cycle = findCycle(ref.id, [self], lookup, new Set());
    if (cycle) {
      reasons.add(ref.path, 'segment_cycle', `segment cycle: ${cycle.join(' → ')}`);
      continue;
    }
    total += inlinedLeaves(def, lookup, [ref.id]) - 1;
  }
  if (total > LIMITS.inlinedConditions) {
    reasons.add(
      '$',
      'max_conditions',
      `with referenced segments inlined the definition has ${total} leaf conditions; the limit is ${LIMITS.inlinedConditions}`,
    );
  }
}

/**
 * A validated definition with every `{"segment": id}` replaced by that segment's definition
 * (recursively), and the ids inlined (sorted). Throws on an unknown id or a cycle: validation refuses
 * both, so either means the saved definitions changed underneath.
 */
export function inlineSegments(c: Condition, lookup: DefinitionLookup): { condition: Condition; segments: string[] } {
  const used = new Set<string>();
  const inline = (x: Condition, trail: string[]): Condition => {
    if ('all' in x) return { all: x.all.map((y) => inline(y, trail)) };
    if ('any' in x) return { any: x.any.map((y) => inline(y, trail)) };
    if ('not' in x) return { not: inline(x.not, trail) };
    if (!isRef(x)) return x;
    if (trail.includes(x.segment)) throw new Error(`segment cycle: ${[...trail, x.segment].join(' → ')}`);
    const def = lookup(x.segment);
    if (!def) throw new Error(`no segment ${x.segment} to inline`);
    used.add(x.segment);
    return inline(def, [...trail, x.segment]);
  };
  const condition = inline(c, []);
  return { condition, segments: [...used].sort() };
}
