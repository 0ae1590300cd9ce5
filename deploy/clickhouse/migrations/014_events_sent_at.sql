-- Clock skew (docs/data-contract.md, "Clock skew"): the upload's `sent_at` by the device clock, and
-- the corrected time `time + received_at - sent_at` (`time` without a sent_at). Rows written before
-- this migration had no sent_at: theirs is NULL and their corrected time is their time (the DEFAULT,
-- computed on read for old parts; the sink always writes both).
ALTER TABLE events ADD COLUMN IF NOT EXISTS sent_at Nullable(DateTime64(3, 'UTC')) AFTER received_at;
ALTER TABLE events ADD COLUMN IF NOT EXISTS corrected_time DateTime64(3, 'UTC') DEFAULT time AFTER sent_at;
