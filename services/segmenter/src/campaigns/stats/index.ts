// The campaign report's statistics: pure functions over per-group counts and sums, each tested against
// values computed once with R (reference-values.R beside them) and by seeded simulation.
export { bayes } from './bayes';
export { cuped, cupedMeans, cupedTheta, stratifiedCuped, sumsOf, type ArmSums } from './cuped';
export { benjaminiHochberg, holm } from './multiplicity';
export { normalCdf, normalQuantile, twoSidedP } from './normal';
export { detectableEffect, usersNeeded } from './power';
export { agrestiCaffo, agrestiCaffoMoments, logRatio, newcombe, wald, wilson, zFor, type Difference, type Interval, type Proportion } from './proportions';
export { sequential, SEQUENTIAL_TUNING } from './sequential';
export { GUARDRAIL_ALPHA, harm } from './guardrail';
export { compareValues, stratifiedValues, type ValueSums } from './values';
export { expectedByPeriod, expectedShares, srm, srmAgainst, SRM_THRESHOLD, type SplitShares } from './srm';
export {
  combine,
  designEffect,
  standardizedRates,
  strata,
  stratifiedAgrestiCaffo,
  stratifiedBayes,
  stratifiedLogRatio,
  stratifiedNewcombe,
  stratifiedWald,
  type Stratum,
} from './stratified';
