-- Typed rejected records (schemas/src/rejected.ts), one row per rejection, queryable and replayable.
-- rejection_id is stable for a message, so re-deliveries collapse like events do. Partitioned by
-- received_at (set once by the gateway), never by failed_at (set again by every re-processing).
CREATE TABLE IF NOT EXISTS rejected
(
    rejection_id      String,
    kind              LowCardinality(String),
    errors            Array(Tuple(path String, rule String, message String)),
    payload           String,
    payload_truncated Bool,
    app_id            LowCardinality(String),
    request_id        String,
    key_id            String,
    received_at       DateTime64(3, 'UTC'),
    failed_at         DateTime64(3, 'UTC'),
    processor         LowCardinality(String),
    event_count       UInt32,
    envelope_index    Nullable(Int32),
    event_index       Nullable(Int32),
    event_name        LowCardinality(Nullable(String)),
    payload_kind      LowCardinality(String),
    source            String,
    inserted_at       DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (app_id, toDate(received_at), kind, rejection_id)
SETTINGS non_replicated_deduplication_window = 1000;
