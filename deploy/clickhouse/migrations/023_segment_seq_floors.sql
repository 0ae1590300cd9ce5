-- The seq floor of each segment (docs/segments.md, "seq across an expiry"): the expiry of ended
-- memberships (services/segmenter/src/segments/expire-ended.ts) raises it to the highest seq of the
-- keys it deletes, before it deletes them, and a (segment, user) key that has no row starts above it.
-- So a user who enters again after their ended key was deleted gets a seq above every seq they had
-- before, and a consumer that drops a change whose seq is not above the last one it saw keeps it.
-- One number per segment: it names no person (a per-user watermark would keep the user id the
-- expiry is there to delete). FINAL keeps the highest floor ever written.
CREATE TABLE IF NOT EXISTS segment_seq_floors
(
    app_id     LowCardinality(String),
    segment_id String,
    floor      UInt64 COMMENT 'every seq of a (segment, user) key the expiry deleted is at most this',
    raised_at  DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(floor)
ORDER BY (app_id, segment_id);
