-- The flat form (server-side imports such as the synthetic data generator, docs/data-contract.md):
-- a third value of `envelope`. Adding a value to an Enum8 is a metadata-only change; existing rows
-- keep their values.
ALTER TABLE events MODIFY COLUMN envelope Enum8('current' = 1, 'earlier' = 2, 'flat' = 3);
