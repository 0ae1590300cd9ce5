-- Expiry drops whole parts (docs/privacy.md, "When a row is physically gone"): every catalog table is rebuilt
-- partitioned by month and retention_days, with ttl_only_drop_parts = 1, so that every part holds rows
-- of one month and one stamp, expires as a whole once its newest row is past its days, and is dropped
-- without being rewritten. A table's partition key cannot be altered, so each table is copied:
--   drop a leftover copy; create the copy (the same columns and indexes, AS the table, with the new
--   key); copy every row; swap the two (EXCHANGE TABLES, atomic); drop the old one.
-- Re-runnable from any statement: a leftover copy is only ever a partial copy (not swapped yet) or the
-- old table (swapped already, its rows all in the new one), so it is dropped and the copy redone.
-- Rows written to the table between the copy and the swap would be lost: run the migrations before the
-- writers start (the migrate job, services/segmenter/src/migrate.ts) or with the sinks stopped.
-- A catalog record's versions now sit in the partitions of the months they were received in: FINAL and
-- argMax still pick the newest version across partitions; background merges no longer fold versions of
-- different months together (the older ones go when their own days are over).

DROP TABLE IF EXISTS catalog_user_parted;
CREATE TABLE IF NOT EXISTS catalog_user_parted AS catalog_user
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY (toYYYYMM(received_at), retention_days)
ORDER BY (app_id, id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO catalog_user_parted SELECT * FROM catalog_user;
EXCHANGE TABLES catalog_user AND catalog_user_parted;
DROP TABLE IF EXISTS catalog_user_parted;

DROP TABLE IF EXISTS catalog_site_parted;
CREATE TABLE IF NOT EXISTS catalog_site_parted AS catalog_site
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY (toYYYYMM(received_at), retention_days)
ORDER BY (app_id, id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO catalog_site_parted SELECT * FROM catalog_site;
EXCHANGE TABLES catalog_site AND catalog_site_parted;
DROP TABLE IF EXISTS catalog_site_parted;

DROP TABLE IF EXISTS catalog_hcw_parted;
CREATE TABLE IF NOT EXISTS catalog_hcw_parted AS catalog_hcw
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY (toYYYYMM(received_at), retention_days)
ORDER BY (app_id, id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO catalog_hcw_parted SELECT * FROM catalog_hcw;
EXCHANGE TABLES catalog_hcw AND catalog_hcw_parted;
DROP TABLE IF EXISTS catalog_hcw_parted;

DROP TABLE IF EXISTS catalog_patient_parted;
CREATE TABLE IF NOT EXISTS catalog_patient_parted AS catalog_patient
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY (toYYYYMM(received_at), retention_days)
ORDER BY (app_id, id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO catalog_patient_parted SELECT * FROM catalog_patient;
EXCHANGE TABLES catalog_patient AND catalog_patient_parted;
DROP TABLE IF EXISTS catalog_patient_parted;

DROP TABLE IF EXISTS catalog_chat_user_parted;
CREATE TABLE IF NOT EXISTS catalog_chat_user_parted AS catalog_chat_user
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY (toYYYYMM(received_at), retention_days)
ORDER BY (app_id, id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO catalog_chat_user_parted SELECT * FROM catalog_chat_user;
EXCHANGE TABLES catalog_chat_user AND catalog_chat_user_parted;
DROP TABLE IF EXISTS catalog_chat_user_parted;

DROP TABLE IF EXISTS catalog_chat_group_parted;
CREATE TABLE IF NOT EXISTS catalog_chat_group_parted AS catalog_chat_group
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY (toYYYYMM(received_at), retention_days)
ORDER BY (app_id, id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO catalog_chat_group_parted SELECT * FROM catalog_chat_group;
EXCHANGE TABLES catalog_chat_group AND catalog_chat_group_parted;
DROP TABLE IF EXISTS catalog_chat_group_parted;

DROP TABLE IF EXISTS catalog_chat_bot_parted;
CREATE TABLE IF NOT EXISTS catalog_chat_bot_parted AS catalog_chat_bot
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY (toYYYYMM(received_at), retention_days)
ORDER BY (app_id, id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO catalog_chat_bot_parted SELECT * FROM catalog_chat_bot;
EXCHANGE TABLES catalog_chat_bot AND catalog_chat_bot_parted;
DROP TABLE IF EXISTS catalog_chat_bot_parted;

DROP TABLE IF EXISTS catalog_drug_parted;
CREATE TABLE IF NOT EXISTS catalog_drug_parted AS catalog_drug
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY (toYYYYMM(received_at), retention_days)
ORDER BY (app_id, id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO catalog_drug_parted SELECT * FROM catalog_drug;
EXCHANGE TABLES catalog_drug AND catalog_drug_parted;
DROP TABLE IF EXISTS catalog_drug_parted;

DROP TABLE IF EXISTS catalog_grocery_parted;
CREATE TABLE IF NOT EXISTS catalog_grocery_parted AS catalog_grocery
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY (toYYYYMM(received_at), retention_days)
ORDER BY (app_id, id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO catalog_grocery_parted SELECT * FROM catalog_grocery;
EXCHANGE TABLES catalog_grocery AND catalog_grocery_parted;
DROP TABLE IF EXISTS catalog_grocery_parted;

DROP TABLE IF EXISTS catalog_blood_parted;
CREATE TABLE IF NOT EXISTS catalog_blood_parted AS catalog_blood
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY (toYYYYMM(received_at), retention_days)
ORDER BY (app_id, id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO catalog_blood_parted SELECT * FROM catalog_blood;
EXCHANGE TABLES catalog_blood AND catalog_blood_parted;
DROP TABLE IF EXISTS catalog_blood_parted;

DROP TABLE IF EXISTS catalog_oxygen_parted;
CREATE TABLE IF NOT EXISTS catalog_oxygen_parted AS catalog_oxygen
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY (toYYYYMM(received_at), retention_days)
ORDER BY (app_id, id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO catalog_oxygen_parted SELECT * FROM catalog_oxygen;
EXCHANGE TABLES catalog_oxygen AND catalog_oxygen_parted;
DROP TABLE IF EXISTS catalog_oxygen_parted;

DROP TABLE IF EXISTS catalog_medical_equipment_parted;
CREATE TABLE IF NOT EXISTS catalog_medical_equipment_parted AS catalog_medical_equipment
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY (toYYYYMM(received_at), retention_days)
ORDER BY (app_id, id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO catalog_medical_equipment_parted SELECT * FROM catalog_medical_equipment;
EXCHANGE TABLES catalog_medical_equipment AND catalog_medical_equipment_parted;
DROP TABLE IF EXISTS catalog_medical_equipment_parted;

DROP TABLE IF EXISTS catalog_facility_parted;
CREATE TABLE IF NOT EXISTS catalog_facility_parted AS catalog_facility
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY (toYYYYMM(received_at), retention_days)
ORDER BY (app_id, id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO catalog_facility_parted SELECT * FROM catalog_facility;
EXCHANGE TABLES catalog_facility AND catalog_facility_parted;
DROP TABLE IF EXISTS catalog_facility_parted;

DROP TABLE IF EXISTS catalog_media_parted;
CREATE TABLE IF NOT EXISTS catalog_media_parted AS catalog_media
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY (toYYYYMM(received_at), retention_days)
ORDER BY (app_id, id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO catalog_media_parted SELECT * FROM catalog_media;
EXCHANGE TABLES catalog_media AND catalog_media_parted;
DROP TABLE IF EXISTS catalog_media_parted;

DROP TABLE IF EXISTS catalog_survey_parted;
CREATE TABLE IF NOT EXISTS catalog_survey_parted AS catalog_survey
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY (toYYYYMM(received_at), retention_days)
ORDER BY (app_id, id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO catalog_survey_parted SELECT * FROM catalog_survey;
EXCHANGE TABLES catalog_survey AND catalog_survey_parted;
DROP TABLE IF EXISTS catalog_survey_parted;

DROP TABLE IF EXISTS catalog_reward_parted;
CREATE TABLE IF NOT EXISTS catalog_reward_parted AS catalog_reward
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY (toYYYYMM(received_at), retention_days)
ORDER BY (app_id, id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO catalog_reward_parted SELECT * FROM catalog_reward;
EXCHANGE TABLES catalog_reward AND catalog_reward_parted;
DROP TABLE IF EXISTS catalog_reward_parted;

DROP TABLE IF EXISTS catalog_custom_parted;
CREATE TABLE IF NOT EXISTS catalog_custom_parted AS catalog_custom
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY (toYYYYMM(received_at), retention_days)
ORDER BY (app_id, kind, id)
TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days))
SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000;
INSERT INTO catalog_custom_parted SELECT * FROM catalog_custom;
EXCHANGE TABLES catalog_custom AND catalog_custom_parted;
DROP TABLE IF EXISTS catalog_custom_parted;
