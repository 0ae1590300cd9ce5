import { BLOCKS, type Block } from '@evp/core';
import type { Reason } from '../rules/registry';
import type { EventDef } from '../dsl/types';

/**
 * The `block` an earlier-form log declares, checked against the block its event type belongs to. The
 * event type decides the block (docs/data-contract.md); the declared one is a cross-check. Real
 * clients declare it in their own ways (causalfoundry/ios-sdk 0.4.3–1.2.3,
 * docs/clients/ios-older-and-utils.md), each accepted with a named warning:
 *
 * - `block_spelling`: another spelling of a block (`e-commerce`, `e-learning`; `chw_mgmt`, the 0.4.x
 *   name of the patient management block);
 * - `block_missing`: `""` (rate events of 0.4.3–1.0.3): the block comes from the event type;
 * - `block_of_app`: a core event carrying the app-level block the app configured (page, identity,
 *   search, nudge_response… of an e-commerce app declare `e-commerce`; module_selection of the
 *   patient-management module declares `patient_mgmt`): the event stays in core.
 *
 * What stays a `block_mismatch` rejection: a non-core event in another block, and a block no client
 * uses (a typo or a producer bug, which a guess would hide).
 */
const SPELLINGS: Readonly<Record<string, Block>> = { 'e-commerce': 'e_commerce', 'e-learning': 'e_learning', chw_mgmt: 'patient_mgmt' };

/** Blocks an app can configure as its own that hold no events of their own (ContentBlock.social). */
const APP_ONLY_BLOCKS: readonly string[] = ['social'];

const isBlock = (s: string): s is Block => (BLOCKS as readonly string[]).includes(s);

/** What the declared block tells: nothing wrong, a warning (accepted), or an error (rejected). */
export function checkDeclaredBlock(declared: string, def: EventDef, path: string): { warning?: Reason; error?: Reason } {
  if (declared === def.block) return {};
  const at = `${path}.block`;
  if (declared === '') {
    return { warning: { path: at, rule: 'block_missing', message: `block is empty; ${def.event} belongs to block ${def.block}` } };
  }
  const spelled = Object.hasOwn(SPELLINGS, declared) ? (SPELLINGS[declared] as Block) : declared;
  if (spelled === def.block) {
    return { warning: { path: at, rule: 'block_spelling', message: `${JSON.stringify(declared)} read as ${def.block}` } };
  }
  if (def.block === 'core' && (isBlock(spelled) || APP_ONLY_BLOCKS.includes(spelled))) {
    return {
      warning: {
        path: at,
        rule: 'block_of_app',
        message: `${def.event} is a core event sent with the app's block ${JSON.stringify(declared)}; stored in block core`,
      },
    };
  }
  return { error: { path: at, rule: 'block_mismatch', message: `${def.event} belongs to block ${def.block}, not ${declared}` } };
}
