-- The action log (topic actions.log, schemas/src/action-log.ts; docs/analytics.md): one row per step
-- of an action of the action store: created, delivered (its first pull), withdrawn (a block), or
-- expired while no pull had returned it. The relay sends every entry at least once; a re-sent entry
-- has the same entry_id, hence the same sorting key, and ReplacingMergeTree collapses it (FINAL at
-- query time; the sink's insert_deduplication_token drops a re-delivered batch at once).
-- Every entry of one action shares its created_at, so all of them (and their copies) sit in one
-- monthly partition. The key starts with what campaign reports filter on: the app, then the
-- invocation (a campaign run) and the action id (a variant), then the user, as nudge_response refs
-- (`<inv_id>:<action_id>`) and users join on them.
CREATE TABLE IF NOT EXISTS actions_log
(
    entry_id      String,
    app_id        LowCardinality(String),
    user_id       String,
    inv_id        UInt64,
    action_id     UInt64,
    kind          Enum8('created' = 1, 'delivered' = 2, 'withdrawn' = 3, 'expired' = 4),
    at            DateTime64(3, 'UTC') COMMENT 'the step; for expired: the expiry instant',
    created_at    DateTime64(3, 'UTC'),
    type          LowCardinality(String),
    render_method LowCardinality(String),
    delivery_mode LowCardinality(String),
    expired_at    Nullable(DateTime64(3, 'UTC')) COMMENT 'NULL = never; an expiry after 2299 is stored as 2299-12-31 23:59:59.999',
    tags          Array(String) COMMENT 'created only',
    attr          Map(String, String) COMMENT 'created only',
    source        LowCardinality(String) COMMENT 'created only: api, actions.requested or the message source',
    ref           String MATERIALIZED concat(toString(inv_id), ':', toString(action_id)) COMMENT 'what nudge_response.ref holds',
    inserted_at   DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(created_at)
ORDER BY (app_id, inv_id, action_id, user_id, kind, entry_id)
SETTINGS non_replicated_deduplication_window = 1000;
