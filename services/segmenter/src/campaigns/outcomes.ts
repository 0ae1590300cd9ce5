import { formatDateTime64 } from '@evp/clickhouse';
import type { Analytics } from '@evp/core';
import type { TriggerKind } from './document';

/** One row of `campaign_outcomes` (migration 011): what a campaign did with one user of one run. */
export interface OutcomeRow {
  campaign_id: string;
  inv_id: number;
  user_id: string;
  /** 0 = control; 1 … N the variant. */
  variant: number;
  /** 0 for control. */
  action_id: number;
  outcome: 'requested' | 'control' | 'skipped';
  reason: string;
  trigger: TriggerKind;
  /** Epoch ms the trigger happened. */
  at: number;
}

/**
 * Writes one batch's rows, each stamped with the app's `history` retention in days (0 = forever;
 * 016_retention.sql) and `written_at` the worker's instant: the same clock as the epochs an adaptive
 * campaign appends to its split history, so the report puts each user in the epoch they were
 * assigned in even when ClickHouse's clock differs from the worker's. A redelivered batch writes the same rows again (same sorting key, same
 * content): `campaign_outcomes` is a ReplacingMergeTree read with FINAL, which collapses them.
 */
export async function writeOutcomes(analytics: Analytics, appId: string, rows: readonly OutcomeRow[], retentionDays: number, writtenAt: number): Promise<void> {
  if (rows.length === 0) return;
  const values = rows.map((r) => ({
    app_id: appId,
    campaign_id: r.campaign_id,
    inv_id: r.inv_id,
    user_id: r.user_id,
    variant: r.variant,
    action_id: r.action_id,
    outcome: r.outcome,
    reason: r.reason,
    trigger: r.trigger,
    at: formatDateTime64(r.at),
    retention_days: retentionDays,
    written_at: formatDateTime64(writtenAt),
  }));
  await analytics.insert('campaign_outcomes', values);
}
