-- Segments (docs/segments-engine.md, docs/analytics.md): saved definitions and membership. Both keep
-- the latest version of a key: ReplacingMergeTree with an explicit version column, read with FINAL.
-- No time partition: the latest version must replace every older one however old.

-- One row per saved version of a segment; an update or a delete inserts version + 1 (a delete with
-- deleted = true, keeping the last name and definition).
CREATE TABLE IF NOT EXISTS segment_definitions
(
    app_id     LowCardinality(String),
    segment_id String,
    version    UInt32,
    name       String,
    definition String COMMENT 'the definition as JSON text',
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC'),
    deleted    Bool
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (app_id, segment_id);

-- One row per change of a (segment, user) membership, written twice: emitted = false before its
-- record is produced to segments.membership, emitted = true after. state_version = seq * 2 + emitted,
-- so FINAL shows each user's latest change, and whether its record is known to be on the topic.
CREATE TABLE IF NOT EXISTS segment_members
(
    app_id        LowCardinality(String),
    segment_id    String,
    user_id       String,
    is_member     Bool,
    entered_at    DateTime64(3, 'UTC'),
    exited_at     Nullable(DateTime64(3, 'UTC')),
    version       UInt32 COMMENT 'the definition version evaluated when the change was seen',
    seq           UInt64 COMMENT 'the n-th change of this (segment, user), from 1',
    emitted       Bool,
    state_version UInt64 COMMENT 'seq * 2 + emitted',
    written_at    DateTime64(3, 'UTC') COMMENT 'wall clock of the write: where crash recovery starts reading the topic back',
    INDEX user_idx user_id TYPE bloom_filter GRANULARITY 4
)
ENGINE = ReplacingMergeTree(state_version)
ORDER BY (app_id, segment_id, user_id);
