import type { Analytics } from '@evp/core';
import { writeOutcomes, type OutcomeRow } from '../campaigns';
import { insertEvents } from './engine-harness';
import { checkout } from './segment-seeding';

const HOUR = 3_600_000;

/**
 * One arm of an adaptive campaign as the worker would have written it: `n` users of `variant` (0:
 * control) of campaign `id` reached at `at`, the first `converted` of them with a goal event
 * (`checkout`) an hour later.
 */
export async function seedArm(
  analytics: Analytics,
  arm: { app: string; id: string; variant: number; n: number; converted: number; at: number },
): Promise<void> {
  const { app, id, variant, at } = arm;
  const rows: OutcomeRow[] = Array.from({ length: arm.n }, (_, i) => ({
    campaign_id: id,
    inv_id: 1,
    user_id: `v${variant}-${i}`,
    variant,
    action_id: variant,
    outcome: variant === 0 ? 'control' : 'requested',
    reason: '',
    trigger: 'api',
    at,
  }));
  await writeOutcomes(analytics, app, rows, 0, at);
  await insertEvents(
    analytics,
    rows.slice(0, arm.converted).map((r) => checkout(app, r.user_id, at + HOUR)),
  );
}
