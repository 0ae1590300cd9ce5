-- One table per catalog kind (packages/core/src/topics.ts CATALOG_KINDS), latest version per id:
-- ReplacingMergeTree(received_at) keeps the newest submission of (app_id, id). There is no time
-- partition on purpose: ReplacingMergeTree only replaces within a partition, and a record's latest
-- version must replace every older one however old. The catalog Avro schemas do not exist yet, so the
-- record is kept generically as JSON; typed columns follow in a later migration once they do.

CREATE TABLE IF NOT EXISTS catalog_user
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

CREATE TABLE IF NOT EXISTS catalog_site
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

CREATE TABLE IF NOT EXISTS catalog_hcw
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

CREATE TABLE IF NOT EXISTS catalog_patient
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

CREATE TABLE IF NOT EXISTS catalog_chat_user
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

CREATE TABLE IF NOT EXISTS catalog_chat_group
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

CREATE TABLE IF NOT EXISTS catalog_chat_bot
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

CREATE TABLE IF NOT EXISTS catalog_drug
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

CREATE TABLE IF NOT EXISTS catalog_grocery
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

CREATE TABLE IF NOT EXISTS catalog_blood
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

CREATE TABLE IF NOT EXISTS catalog_oxygen
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

CREATE TABLE IF NOT EXISTS catalog_medical_equipment
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

CREATE TABLE IF NOT EXISTS catalog_facility
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
