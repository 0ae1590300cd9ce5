// The segment definition language (docs/segments.md): its shapes, its validation against the
// event contract, and its compiler to one parameterised ClickHouse query. The segment engine
// evaluates what it compiles; campaigns reuse its rules, its contract look-ups and its event match.
export type {
  AggregateCondition,
  Condition,
  CountBound,
  CountOp,
  EventCondition,
  Op,
  Predicate,
  PropPredicate,
  SegmentRefCondition,
  Window,
} from './definition';
export { type CompiledSegment, evaluationParams } from './compiled';
export { dependentsOf, segmentRefs } from './references';
export { compileSegment } from './compile/compile';
export { compileEventMatch, eventMatch, eventValue, QueryParts } from './compile/leaves';
export { APP, NOW } from './compile/params';
export { catalogFields, catalogKind, CLIENT_FACT_NAMES, contractEvent, profileField, profileFieldNames, valueClass } from './language/contract';
export { article } from './language/operators';
export { onlyKeys, stringAt } from './language/predicates';
export { at, DEFINITION_RULES, isObject, jsonType, LIMITS, Reasons } from './language/rules';
export { parseDuration, parseTimestamp } from './language/time';
export { validateDefinition } from './language/validate';
export { checkDuration } from './language/windows';
