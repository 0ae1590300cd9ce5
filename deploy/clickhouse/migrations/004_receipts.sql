-- Issue 12: what became of every event of a request, and the warnings of accepted events.
-- Warnings of an accepted event: unknown properties kept as extras, client quirks normalised
-- (docs/data-contract.md). Rows written before this migration read as having none.
ALTER TABLE events ADD COLUMN IF NOT EXISTS warnings Array(Tuple(path String, rule String, message String)) AFTER client;

-- The user of a rejected event's envelope, when it could be read, so rejections can be looked up by user.
ALTER TABLE rejected ADD COLUMN IF NOT EXISTS user_id Nullable(String) AFTER source;

-- One row per receipt (schemas/src/receipt.ts): the verdicts of one raw message (one envelope of a
-- request), or one part of them. A re-processed message yields the same receipt_id and sorting key,
-- so redeliveries collapse. Read by GET /v1/ingest/requests/{request_id} (docs/api.md).
CREATE TABLE IF NOT EXISTS ingest_receipts
(
    receipt_id     String,
    app_id         LowCardinality(String),
    request_id     String,
    key_id         String,
    received_at    DateTime64(3, 'UTC'),
    processed_at   DateTime64(3, 'UTC'),
    payload_kind   LowCardinality(String),
    envelope_index UInt32,
    envelope_count UInt32,
    part           UInt32,
    parts          UInt32,
    events_in      UInt32,
    accepted       UInt32,
    rejected       UInt32,
    items          Array(Tuple(
                       event_index Nullable(Int32),
                       status LowCardinality(String),
                       id String,
                       name Nullable(String),
                       user_id Nullable(String),
                       kind Nullable(String),
                       reasons Array(Tuple(path String, rule String, message String)),
                       reasons_total UInt32,
                       event_count UInt32)),
    inserted_at    DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (app_id, request_id, envelope_index, part)
TTL toDateTime(received_at) + INTERVAL 30 DAY
SETTINGS non_replicated_deduplication_window = 1000;
