-- Campaign actions in the action log (docs/campaigns.md, "Caps" and "Local time"):
-- - kind `capped`: the action store refused a campaign action because a frequency cap was reached
--   (atomically, at create time); `reason` says which cap: `campaign_cap` or `app_cap`.
-- - available_at: an action created now but not returned by pulls before this instant (quiet hours,
--   "deliver at 09:00" local time); NULL = available at creation.
-- Adding an enum value and columns with defaults leaves every existing row as it was.
ALTER TABLE actions_log MODIFY COLUMN kind Enum8('created' = 1, 'delivered' = 2, 'withdrawn' = 3, 'expired' = 4, 'capped' = 5);
ALTER TABLE actions_log ADD COLUMN IF NOT EXISTS reason LowCardinality(String) DEFAULT '' COMMENT 'capped only: campaign_cap or app_cap' AFTER source;
ALTER TABLE actions_log ADD COLUMN IF NOT EXISTS available_at Nullable(DateTime64(3, 'UTC')) COMMENT 'created only: not pulled before; NULL = at creation' AFTER reason;
