import { createHash } from 'node:crypto';
import { MAX_GIVEN_ID } from '@evp/actions';

/**
 * The ids a campaign gives its actions (docs/campaigns.md, "Output and idempotency"), derived, never
 * stored: every replica, restart and redelivery computes the same ones, so the action store's
 * idempotent create (app, inv_id, action_id, user_id) turns a repeated trigger into `duplicate`.
 * - `inv_id`: one per campaign **run** — a segment entry, a matching event, a schedule occurrence,
 *   an API trigger call — named by its run key.
 * - `action_id`: one per campaign **variant** (1-based, in document order).
 * Both are caller-given ids of the action store (1 … MAX_GIVEN_ID, 31 bits). Two runs of one
 * campaign share an inv_id with probability about 2^-31 per pair; a user would then get one action
 * for both (documented bound, not a silent loss of data: the run's outcome row still names it).
 */
function id31(parts: readonly (string | number)[]): number {
  const digest = createHash('sha256').update(JSON.stringify(parts), 'utf8').digest();
  // 1 … 2^31 - 1: zero is not a valid given id.
  return (digest.readUInt32BE(0) % MAX_GIVEN_ID) + 1;
}

/** The action_id of a campaign's variant (1-based); stable for the campaign's life, across versions. */
export function variantActionId(appId: string, campaignId: string, variant: number): number {
  return id31(['variant', appId, campaignId, variant]);
}

/** The inv_id of one run of a campaign; `runKey` names the run (e.g. `entry:<segment>:<user>:<at>`). */
export function runInvId(appId: string, campaignId: string, runKey: string): number {
  return id31(['run', appId, campaignId, runKey]);
}
