export { EVENT_STEPS, toCanonical } from './pipeline';
export { buildEvent } from './build';
export { draftOf, type EventDraft, type EventStep } from './draft';
