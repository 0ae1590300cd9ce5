-- Erasure and export requests (services/segmenter/src/privacy, docs/privacy.md). A request is stored
-- by keyed hashes of the ids it names (HMAC-SHA256 with PRIVACY_HASH_KEY), never the ids; its
-- progress (state, per-store counts and times) is rewritten at every step, so a restarted segmenter
-- resumes it where it was. The newest version of a request wins.
CREATE TABLE IF NOT EXISTS privacy_requests
(
    app_id     LowCardinality(String),
    request_id String,
    kind       Enum8('erasure' = 1, 'export' = 2),
    id_hashes  Array(String) COMMENT 'keyed hashes of the ids (privacy/hash.ts), never the ids',
    state      LowCardinality(String),
    document   String COMMENT 'the request as GET answers it (stores, kafka, rows), as JSON text',
    version    UInt64,
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (app_id, request_id);

-- The ids of requests in flight: what the delete statements read through a subquery (never a literal
-- in a statement: a mutation's text stays on disk). An erasure's rows are deleted (and the deletion
-- made physical) when it ends; an export's when it is removed.
CREATE TABLE IF NOT EXISTS privacy_work
(
    app_id     LowCardinality(String),
    request_id String,
    kind       LowCardinality(String) COMMENT 'user or patient',
    id         String
)
-- ReplacingMergeTree (rows are their own key, so nothing is replaced): the engine every table has,
-- which the clustered form of the migrations knows how to render.
ENGINE = ReplacingMergeTree
ORDER BY (app_id, request_id, kind, id);

-- Suppressed people, by keyed hash (the compacted topic privacy.suppressions carries the same): what
-- GET /v1/privacy/suppressions lists and the sink checks. A lifted suppression is a newer version with lifted = true.
CREATE TABLE IF NOT EXISTS privacy_suppressions
(
    app_id      LowCardinality(String),
    id_hash     String,
    kind        LowCardinality(String),
    request_id  String,
    at          DateTime64(3, 'UTC'),
    lifted      Bool,
    version     UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (app_id, id_hash);
