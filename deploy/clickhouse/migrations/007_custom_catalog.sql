-- Records of app-defined catalog kinds (schemas/src/catalogs/custom.ts; docs/data-contract.md,
-- "App-defined catalog kinds"): kinds an app names itself (the Unity SDK's LogOtherCatalog), which no
-- definition types. All of them share this one table, told apart by `kind`; the record keeps every
-- field but `id` as sent. Latest version per (app_id, kind, id), as for the built-in kinds of
-- 003_catalog.sql, and for the same reason no time partition.

CREATE TABLE IF NOT EXISTS catalog_custom
(
    app_id      LowCardinality(String),
    kind        LowCardinality(String),
    id          String,
    received_at DateTime64(3, 'UTC'),
    request_id  String,
    record      JSON,
    inserted_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(received_at)
ORDER BY (app_id, kind, id)
SETTINGS non_replicated_deduplication_window = 1000;
