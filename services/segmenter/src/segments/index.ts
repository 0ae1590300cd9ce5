// Segments: the definition store, the engine that evaluates definitions on stored rows and
// schedules, the membership log, and the API service behind /v1/segments.
export * from './service';
export * from './engine';
export { createSegments, type SegmentsDeps } from './compose';
export { workForRows, workMessage, type SegmentEntry, type WorkItem } from './work';
export { createChangeLog } from './change-log';
export { createMembershipState } from './membership-store';
export { createSegmentStore } from './definitions-store';
export type { MembershipChange, Segment, SegmentDefinitions } from './model';
export { chToRfc3339 } from './times';
// The segment language and its compiler, which campaigns also read.
export { compileSegment } from './compile/compile';
export { compileEventMatch, eventMatch, QueryParts } from './compile/leaves';
export { APP, NOW } from './compile/params';
export { type CompiledSegment, evaluationParams } from './compiled';
export type { Condition, CountBound, DefinitionProblem, EventCondition, Op, Predicate, PropPredicate, Window } from './definition';
export { catalogFields, catalogKind, CLIENT_FACT_NAMES, contractEvent, profileField, profileFieldNames, valueClass } from './language/contract';
export { article } from './language/operators';
export { onlyKeys, stringAt } from './language/predicates';
export { at, isObject, jsonType, Problems } from './language/rules';
export { parseDuration, parseTimestamp } from './language/time';
export { validateDefinition } from './language/validate';
export { checkDuration } from './language/windows';
