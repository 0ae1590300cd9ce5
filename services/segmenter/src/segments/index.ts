// Segments: the definition store, the engine that evaluates definitions on stored rows and
// schedules, the membership log, and the API service behind /v1/segments.
export * from './service';
export * from './engine';
export { SEGMENT_ENGINE_NAME, SEGMENT_ENGINE_OPTIONS, type SegmentEngineConfig } from './options';
export { createSegments, type SegmentsDeps } from './compose';
export { workForRows, workMessage, type SegmentEntry, type WorkItem } from './work';
export { createChangeLog } from './change-log';
export { createMembershipState } from './membership-store';
export { createSegmentStore } from './definitions-store';
export type { MemberPage, MembershipChange, Segment, SegmentDefinitions } from './model';
export { memberCounts, membershipHistory, type MembershipHour } from './history';
export { floorsBySegment, raiseFloorsOf } from './seq-floors';
