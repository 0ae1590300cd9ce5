-- Dead letters (topic deadletters; schemas/src/dead-letter-fields.ts, docs/reliability.md): every
-- message a consumer could not handle, in the one envelope, stored by the sink so the inspector can
-- list an app's own (app_id '' when the message names no app: those are listed by
-- `npm run deadletters -- list`). The same failure written twice (a crash between the dead-letter
-- write and the commit) has one dead_letter_id, hence one sorting key: ReplacingMergeTree collapses it.
CREATE TABLE IF NOT EXISTS dead_letters
(
    dead_letter_id    String,
    app_id            LowCardinality(String),
    source_topic      LowCardinality(String),
    source_partition  UInt32,
    source_offset     String,
    source_key        Nullable(String),
    consumer_group    LowCardinality(String),
    error_kind        LowCardinality(String),
    error_message     String,
    error_retriable   Bool,
    processor         LowCardinality(String),
    processor_version LowCardinality(String),
    failed_at         DateTime64(3, 'UTC'),
    replay_of         Nullable(String),
    replay_count      UInt32,
    headers           Map(String, String),
    payload           String,
    payload_encoding  LowCardinality(String),
    payload_bytes     UInt32,
    payload_truncated Bool,
    inserted_at       DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree
ORDER BY (app_id, dead_letter_id)
SETTINGS non_replicated_deduplication_window = 1000;
