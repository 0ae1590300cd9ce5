// The ClickHouse sink: consumes the validator's topics, maps records to rows (rows.ts, from the
// field table) and inserts them in batches; each stored batch is handed on (`onInserted`).
export * from './sink';
export { SINK_TOPICS, type InsertedRow } from './read';
export { SINK_NAME, SINK_OPTIONS, type SinkConfig } from './options';
export * from './rows';
export * from './batcher';
