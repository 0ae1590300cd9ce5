// Test harnesses and fixtures (imported by tests only; no module here imports an adapter).
// testing/replica-child.ts is a process entry point, spawned by path, so it is not exported.
export { insertEvents, readMembership, startEngine, userEvent, type EngineHarness } from './engine-harness';
export { pageEvent, pageEventRow, rejectedRecord } from './fixtures';
export { handCompile } from './hand-compiler';
export { serveAnalyticsOverIpc } from './ipc-analytics';
export { referenceMembers } from './segment-reference-model';
export { checkout, ev, membersOf, seed, type CatalogSeed, type Definitions } from './segment-seeding';
export { nth, startSinkHarness, type SinkHarness, type SinkHarnessOptions } from './sink-harness';
export { MemoryCampaigns, readRequested } from './worker-harness';
export { consoleBuildStub } from './console-build';
export { appSnapshot, seedPerson } from './privacy-seed';
export { expectExpiry, runExpiryScenario } from './expiry-scenario';
export { seedArm } from './adaptive-arms';
