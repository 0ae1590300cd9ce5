-- Retention per app (docs/privacy.md, "Retention"): every row carries how many days it is kept after
-- its time, stamped at insert from the app's setting of the row's class (keys file,
-- apps.<app_id>.retention); 0 = forever. Rows written before this migration read as 0 (kept, as they
-- were), except ingest_receipts, which had a 30-day TTL and keep it; a shorter retention reaches old
-- rows only through the explicit one-off step (`npm run retention -- apply`).
-- The TTL expression maps 0 to the last whole year DateTime holds, so forever never overflows.
-- A row's time for its TTL: the one its table is partitioned by, where it has one (an action's
-- entries share created_at, so they expire together); received_at for catalog records (each version
-- is kept its days after it was received); `at` for campaign outcomes (the trigger).
-- Partitions stay as they are (changing a partition key means rebuilding the table): expired rows
-- are removed by merges (docs/privacy.md says when).

ALTER TABLE events ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after time, from the app''s events retention; 0 = forever';
ALTER TABLE events MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(time) + toIntervalDay(retention_days));
ALTER TABLE rejected ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after received_at, from the app''s rejected retention; 0 = forever';
ALTER TABLE rejected MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days));
ALTER TABLE dead_letters ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after failed_at, from the app''s rejected retention; 0 = forever';
ALTER TABLE dead_letters MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(failed_at) + toIntervalDay(retention_days));
ALTER TABLE ingest_receipts ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 30 COMMENT 'days kept after received_at, from the app''s rejected retention; 0 = forever';
ALTER TABLE ingest_receipts MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days));
ALTER TABLE actions_log ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after created_at, from the app''s action_log retention; 0 = forever';
ALTER TABLE actions_log MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(created_at) + toIntervalDay(retention_days));
ALTER TABLE campaign_outcomes ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after at, from the app''s history retention; 0 = forever';
ALTER TABLE campaign_outcomes MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(at) + toIntervalDay(retention_days));
ALTER TABLE catalog_user ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after received_at, from the app''s catalogs retention; 0 = forever';
ALTER TABLE catalog_user MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days));
ALTER TABLE catalog_site ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after received_at, from the app''s catalogs retention; 0 = forever';
ALTER TABLE catalog_site MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days));
ALTER TABLE catalog_hcw ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after received_at, from the app''s catalogs retention; 0 = forever';
ALTER TABLE catalog_hcw MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days));
ALTER TABLE catalog_patient ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after received_at, from the app''s catalogs retention; 0 = forever';
ALTER TABLE catalog_patient MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days));
ALTER TABLE catalog_chat_user ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after received_at, from the app''s catalogs retention; 0 = forever';
ALTER TABLE catalog_chat_user MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days));
ALTER TABLE catalog_chat_group ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after received_at, from the app''s catalogs retention; 0 = forever';
ALTER TABLE catalog_chat_group MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days));
ALTER TABLE catalog_chat_bot ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after received_at, from the app''s catalogs retention; 0 = forever';
ALTER TABLE catalog_chat_bot MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days));
ALTER TABLE catalog_drug ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after received_at, from the app''s catalogs retention; 0 = forever';
ALTER TABLE catalog_drug MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days));
ALTER TABLE catalog_grocery ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after received_at, from the app''s catalogs retention; 0 = forever';
ALTER TABLE catalog_grocery MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days));
ALTER TABLE catalog_blood ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after received_at, from the app''s catalogs retention; 0 = forever';
ALTER TABLE catalog_blood MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days));
ALTER TABLE catalog_oxygen ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after received_at, from the app''s catalogs retention; 0 = forever';
ALTER TABLE catalog_oxygen MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days));
ALTER TABLE catalog_medical_equipment ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after received_at, from the app''s catalogs retention; 0 = forever';
ALTER TABLE catalog_medical_equipment MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days));
ALTER TABLE catalog_facility ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after received_at, from the app''s catalogs retention; 0 = forever';
ALTER TABLE catalog_facility MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days));
ALTER TABLE catalog_media ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after received_at, from the app''s catalogs retention; 0 = forever';
ALTER TABLE catalog_media MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days));
ALTER TABLE catalog_survey ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after received_at, from the app''s catalogs retention; 0 = forever';
ALTER TABLE catalog_survey MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days));
ALTER TABLE catalog_reward ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after received_at, from the app''s catalogs retention; 0 = forever';
ALTER TABLE catalog_reward MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days));
ALTER TABLE catalog_custom ADD COLUMN IF NOT EXISTS retention_days UInt16 DEFAULT 0 COMMENT 'days kept after received_at, from the app''s catalogs retention; 0 = forever';
ALTER TABLE catalog_custom MODIFY TTL if(retention_days = 0, toDateTime('2106-01-01 00:00:00', 'UTC'), toDateTime(received_at) + toIntervalDay(retention_days));
