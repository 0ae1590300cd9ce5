// The steps themselves are listed in order in pipeline.ts (EVENT_STEPS); the normaliser runs them through toCanonical.
export { toCanonical } from './pipeline';
