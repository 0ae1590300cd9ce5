-- Expiry drops whole parts (docs/privacy.md, "When a row is physically gone"): every table of the events, rejected, action_log and history classes is rebuilt
-- partitioned by month and retention_days, with ttl_only_drop_parts = 1, so that every part holds rows
-- of one month and one stamp, expires as a whole once its newest row is past its days, and is dropped
-- without being rewritten. A table's partition key cannot be altered, so each table is copied:
--   drop a leftover copy; create the copy (the same columns and indexes, AS the table, with the new
--   key); copy every row; swap the two (EXCHANGE TABLES, atomic); drop the old one.
-- Re-runnable from any statement: a leftover copy is only ever a partial copy (not swapped yet) or the
-- old table (swapped already, its rows all in the new one), so it is dropped and the copy redone.
-- Rows written to the table between the copy and the swap would be lost: run the migrations before the
-- writers start (the migrate job, services/segmenter/src/migrate.ts) or with the sinks stopped.

DROP TABLE IF EXISTS events_parted;
CREATE TABLE IF NOT EXISTS events_parted AS events
ENGINE = ReplacingMergeTree
PARTITION BY (toYYYYMM(time), retention_days)
ORDER BY (app_id, toDate(time), user_id, time, event_id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(time) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO events_parted SELECT * FROM events;
EXCHANGE TABLES events AND events_parted;
DROP TABLE IF EXISTS events_parted;

DROP TABLE IF EXISTS rejected_parted;
CREATE TABLE IF NOT EXISTS rejected_parted AS rejected
ENGINE = ReplacingMergeTree
PARTITION BY (toYYYYMM(received_at), retention_days)
ORDER BY (app_id, toDate(received_at), kind, rejection_id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO rejected_parted SELECT * FROM rejected;
EXCHANGE TABLES rejected AND rejected_parted;
DROP TABLE IF EXISTS rejected_parted;

DROP TABLE IF EXISTS dead_letters_parted;
CREATE TABLE IF NOT EXISTS dead_letters_parted AS dead_letters
ENGINE = ReplacingMergeTree
PARTITION BY (toYYYYMM(failed_at), retention_days)
ORDER BY (app_id, dead_letter_id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(failed_at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO dead_letters_parted SELECT * FROM dead_letters;
EXCHANGE TABLES dead_letters AND dead_letters_parted;
DROP TABLE IF EXISTS dead_letters_parted;

DROP TABLE IF EXISTS ingest_receipts_parted;
CREATE TABLE IF NOT EXISTS ingest_receipts_parted AS ingest_receipts
ENGINE = ReplacingMergeTree
PARTITION BY (toYYYYMM(received_at), retention_days)
ORDER BY (app_id, request_id, envelope_index, part)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO ingest_receipts_parted SELECT * FROM ingest_receipts;
EXCHANGE TABLES ingest_receipts AND ingest_receipts_parted;
DROP TABLE IF EXISTS ingest_receipts_parted;

DROP TABLE IF EXISTS actions_log_parted;
CREATE TABLE IF NOT EXISTS actions_log_parted AS actions_log
ENGINE = ReplacingMergeTree
PARTITION BY (toYYYYMM(created_at), retention_days)
ORDER BY (app_id, inv_id, action_id, user_id, kind, entry_id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(created_at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO actions_log_parted SELECT * FROM actions_log;
EXCHANGE TABLES actions_log AND actions_log_parted;
DROP TABLE IF EXISTS actions_log_parted;

DROP TABLE IF EXISTS campaign_outcomes_parted;
CREATE TABLE IF NOT EXISTS campaign_outcomes_parted AS campaign_outcomes
ENGINE = ReplacingMergeTree
PARTITION BY (toYYYYMM(at), retention_days)
ORDER BY (app_id, campaign_id, inv_id, user_id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1;
INSERT INTO campaign_outcomes_parted SELECT * FROM campaign_outcomes;
EXCHANGE TABLES campaign_outcomes AND campaign_outcomes_parted;
DROP TABLE IF EXISTS campaign_outcomes_parted;
