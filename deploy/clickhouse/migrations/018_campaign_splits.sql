-- The split history of each campaign (docs/campaigns.md, "Report", the sample-ratio check): the
-- report's expected group sizes are computed per period in which the document's holdout and weights
-- held, so it must know every earlier split, which the ReplacingMergeTree of `campaigns` forgets at
-- its next merge. Each saved version carries the whole history forward (JSON text, oldest first):
-- `[{"from": epoch ms, "holdout": 0.5, "weights": [1, 1]}, …]`, one entry per change of the split.
-- Rows saved before this migration have '[]': their report falls back to the current document.
ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS splits String DEFAULT '[]' COMMENT 'the split history (holdout, weights, from), oldest first, as JSON text';
