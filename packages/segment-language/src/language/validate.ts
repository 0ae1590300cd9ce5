import type { Condition, DefinitionProblem } from '../definition';
import { ConditionWalk } from './conditions';
import { LIMITS, Problems } from './rules';
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

export type ValidationResult = { ok: true; definition: Condition } | { ok: false; problems: DefinitionProblem[] };

/**
 * Unknown JSON → a definition of the segment language (docs/segments.md), or every problem found,
 * each with its JSON path from the root (`$.all[1].where[0].op`) and rule (DEFINITION_RULES).
 * Checked against the data contract: event names, property paths and their types, enum values,
 * catalog kinds and fields, profile fields; windows, counts, sizes; references to other segments.
 */
export function validateDefinition(json: unknown, ctx: ValidationContext): ValidationResult {
  const problems = new Problems();
  const walk = new ConditionWalk(problems);
  walk.condition('$', json, 1);
  if (walk.leaves > LIMITS.conditions) {
    problems.add('$', 'max_conditions', `the definition has ${walk.leaves} leaf conditions; the limit is ${LIMITS.conditions}`);
  }
  checkSegmentRefs(problems, walk.refs, ctx.definitionOf, ctx.selfId, walk.leaves);
  if (problems.list.length > 0) return { ok: false, problems: problems.list };
  // A copy: the caller's object may change later, the validated definition must not.
  return { ok: true, definition: structuredClone(json) as Condition };
}
