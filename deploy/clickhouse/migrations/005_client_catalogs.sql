-- Catalog kinds the spec does not list that real clients upload (causalfoundry/ios-sdk 0.4.3–1.2.3,
-- Kenkai): media, survey and reward (schemas/src/catalogs/definitions.ts; docs/data-contract.md,
-- "Real clients and their quirks"). Same shape and choices as the kinds of 003_catalog.sql.

CREATE TABLE IF NOT EXISTS catalog_media
(
    app_id      LowCardinality(String),
    id          String,
    received_at DateTime64(3, 'UTC'),
    request_id  String,
    record      JSON,
    inserted_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(received_at)
ORDER BY (app_id, id)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE TABLE IF NOT EXISTS catalog_survey
(
    app_id      LowCardinality(String),
    id          String,
    received_at DateTime64(3, 'UTC'),
    request_id  String,
    record      JSON,
    inserted_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(received_at)
ORDER BY (app_id, id)
SETTINGS non_replicated_deduplication_window = 1000;

CREATE TABLE IF NOT EXISTS catalog_reward
(
    app_id      LowCardinality(String),
    id          String,
    received_at DateTime64(3, 'UTC'),
    request_id  String,
    record      JSON,
    inserted_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(received_at)
ORDER BY (app_id, id)
SETTINGS non_replicated_deduplication_window = 1000;
