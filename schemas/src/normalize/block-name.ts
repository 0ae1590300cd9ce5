import { BLOCKS, type RejectionReason } from '@evp/core';

const blocks: readonly string[] = BLOCKS;

/**
 * A declared block as a client spells it → the platform's block name. Block names are snake_case
 * (`e_commerce`, spec 2.2); the synthetic data generator writes them with a hyphen (`e-commerce`,
 * `e-learning`, its constants.py). A hyphenated name whose underscore form is a block is read as that
 * block, with warning `block_spelling`; anything else is returned as sent (and then checked against
 * the event's block as before, `block_mismatch`). Idempotent: a block name comes back unchanged.
 */
export function normalizeBlockName(sent: string, path: string): { block: string; warning?: RejectionReason } {
  if (!sent.includes('-')) return { block: sent };
  const block = sent.replace(/-/g, '_');
  if (!blocks.includes(block)) return { block: sent };
  return { block, warning: { path, rule: 'block_spelling', message: `block ${JSON.stringify(sent)} read as ${block}` } };
}
