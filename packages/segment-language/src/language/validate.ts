import { checked, refused, type Checked } from '@evp/core';
import type { Condition } from '../definition';
import { ConditionWalk } from './conditions';
import { LIMITS, Reasons } from './rules';
import { checkSegmentRefs, type DefinitionLookup } from './segment-refs';

export interface ValidationContext {
  /**
   * The app's other segments' definitions by id (`{"segment": id}`), e.g. from
   * `SegmentDefinitions.list(appId)` loaded once before validating.
   */
  definitionOf: DefinitionLookup;
  /** The id of the segment whose definition this is, on update: a reference leading back to it is a cycle. */
  selfId?: string;
}

/**
 * Unknown JSON → a definition of the segment language (docs/segments.md), or every problem found,
 * each with its JSON path from the root (`$.all[1].where[0].op`) and rule (DEFINITION_RULES).
 * Checked against the data contract: event names, property paths and their types, enum values,
 * catalog kinds and fields, profile fields; windows, counts, sizes; references to other segments.
 */
export function validateDefinition(json: unknown, ctx: ValidationContext): Checked<Condition> {
  const reasons = new Reasons();
  const walk = new ConditionWalk(reasons);
  walk.condition('$', json, 1);
  if (walk.leaves > LIMITS.conditions) {
    reasons.add('$', 'max_conditions', `the definition has ${walk.leaves} leaf conditions; the limit is ${LIMITS.conditions}`);
  }
  checkSegmentRefs(reasons, walk.refs, ctx.definitionOf, ctx.selfId, walk.leaves);
  if (reasons.list.length > 0) return refused(reasons.list);
  // A copy: the caller's object may change later, the validated definition must not.
  return checked(structuredClone(json) as Condition);
}
