// Adaptive allocation at work (docs/campaigns.md, "Adaptive allocation"): the worker's epoch step
// and sticky assignment's record, over the pure functions of ../bandit.
export { adaptCampaign } from './epoch';
export { firstVariants } from './first-variants';
