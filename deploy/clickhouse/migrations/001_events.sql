-- One row per canonical event (schemas/src/canonical.ts); columns and choices: docs/analytics.md.
-- Re-delivered messages and re-sent uploads carry the same deterministic event_id, hence the same
-- sorting key: ReplacingMergeTree collapses them (at merges; `FINAL` at query time), and the sink's
-- insert_deduplication_token makes a re-delivered batch a no-op at once (window below).
-- Duplicates always share time and so the monthly partition, which ReplacingMergeTree needs.
CREATE TABLE IF NOT EXISTS events
(
    event_id         String,
    app_id           LowCardinality(String),
    user_id          String,
    session_id       String,
    session_start    Nullable(DateTime64(3, 'UTC')),
    session_end      Nullable(DateTime64(3, 'UTC')),
    device_id        String,
    os               LowCardinality(String),
    sdk_name         LowCardinality(String),
    sdk_version      LowCardinality(String),
    app_version      LowCardinality(String),
    app_version_code Nullable(Int32),
    tz               LowCardinality(String),
    block            LowCardinality(String),
    name             LowCardinality(String),
    sent_name        LowCardinality(Nullable(String)),
    property         Nullable(String),
    time             DateTime64(3, 'UTC'),
    online           Bool,
    received_at      DateTime64(3, 'UTC'),
    request_id       String,
    envelope         Enum8('current' = 1, 'earlier' = 2),
    props            JSON,
    meta             Nullable(String) COMMENT 'any JSON value as text',
    client           JSON COMMENT 'earlier-form up, dn, d_info, app_info and declared ids; {} when none',
    inserted_at      DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(time)
ORDER BY (app_id, toDate(time), user_id, time, event_id)
SETTINGS non_replicated_deduplication_window = 1000;
