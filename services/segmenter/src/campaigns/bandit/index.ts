// Adaptive allocation of a campaign's variants (issue 42): top-two Thompson sampling per 12 h epoch,
// sticky assignment, and the epoch-weighted estimate. Pure functions; the worker and report call in.
export { DEFAULT_FLOOR, EPOCH_MS, MIN_USERS_PER_VARIANT, epochAt, firstEpoch, nextEpoch, type Epoch } from './epochs';
export { epochWeighted, epochWeightedOf, type EpochWeighted } from './estimate';
export { assignAdaptive } from './sticky';
export { topTwoShares, withFloor } from './thompson';
