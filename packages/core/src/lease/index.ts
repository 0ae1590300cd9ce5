export { createInMemoryLeaseStore } from './in-memory';
export { leaseTtlMs, leasedTurns, type LeasedTurn, type LeasedTurns, type LeasedTurnsOptions } from './turns';
