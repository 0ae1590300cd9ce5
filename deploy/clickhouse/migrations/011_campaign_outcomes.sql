-- What a campaign did with each user of each run (docs/campaigns.md, "Report"): one row per
-- (campaign, run, user), written by the campaign worker before it requests the run's actions, so
-- the report's audience, control group and skips come from here, and created / delivered / capped
-- from actions_log. A redelivered trigger writes the same row again (same key, same content):
-- ReplacingMergeTree collapses it; read with FINAL.
CREATE TABLE IF NOT EXISTS campaign_outcomes
(
    app_id      LowCardinality(String),
    campaign_id String,
    inv_id      UInt64 COMMENT 'the run (campaigns/ids.ts runInvId)',
    user_id     String,
    variant     UInt8 COMMENT '0 = control; 1 … N = the variants in document order (1 when the campaign has none)',
    action_id   UInt64 COMMENT 'the variant action id (campaigns/ids.ts variantActionId); 0 for control',
    outcome     Enum8('requested' = 1, 'control' = 2, 'skipped' = 3),
    reason      String COMMENT 'skipped only, e.g. template_variable_missing: user.name',
    trigger     LowCardinality(String) COMMENT 'segment_entry, event, schedule or api',
    at          DateTime64(3, 'UTC') COMMENT 'when the trigger happened: the attribution window of the goal starts here, for control and treated alike',
    written_at  DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree
ORDER BY (app_id, campaign_id, inv_id, user_id);
