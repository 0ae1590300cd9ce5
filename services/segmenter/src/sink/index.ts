// The ClickHouse sink: consumes the validator's topics, maps records to rows (rows.ts, from the
// field table) and inserts them in batches; each stored batch is handed on (`onInserted`).
export * from './sink';
export * from './rows';
export * from './batcher';
