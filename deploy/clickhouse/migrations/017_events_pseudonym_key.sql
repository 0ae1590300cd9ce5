-- Pseudonyms (docs/privacy.md, "Pseudonyms"): the version of the app's pseudonym key a row's
-- pseudonyms were made with, NULL when the row holds none (every row written before this migration).
ALTER TABLE events ADD COLUMN IF NOT EXISTS pseudonym_key Nullable(Int32) AFTER request_id;
