-- Campaigns (docs/campaigns.md, docs/analytics.md): saved campaigns and each app's campaign settings.
-- Both keep the latest version of a key: ReplacingMergeTree with an explicit version column, read
-- with FINAL. No time partition: the latest version must replace every older one however old.

-- One row per saved version of a campaign: creating inserts version 1 (a draft); every change of
-- the document (PUT) or the state (pause, resume, end) inserts version + 1 with the whole campaign.
CREATE TABLE IF NOT EXISTS campaigns
(
    app_id      LowCardinality(String),
    campaign_id String,
    version     UInt32,
    name        String,
    document    String COMMENT 'the validated campaign document as JSON text',
    state       Enum8('draft' = 1, 'active' = 2, 'paused' = 3, 'ended' = 4),
    created_at  DateTime64(3, 'UTC'),
    updated_at  DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (app_id, campaign_id);

-- One row per saved version of an app's campaign settings (campaigns/app-settings.ts); an app
-- without a row has the defaults.
CREATE TABLE IF NOT EXISTS campaign_settings
(
    app_id               LowCardinality(String),
    version              UInt32,
    max_per_user_per_day Nullable(UInt32) COMMENT 'at most this many campaign actions per user per day across the app; NULL: no app-wide cap',
    updated_at           DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(version)
ORDER BY app_id;
