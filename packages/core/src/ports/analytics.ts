/** Options of one `Analytics.insert`. */
export interface InsertOptions {
  /** Makes a retried insert of the same block a no-op. */
  dedupToken?: string;
  /**
   * When given, every row is an array holding one value per column, in this order (columns left
   * out take their defaults), sent as JSONCompactEachRow: no key is written or parsed per value,
   * which for a wide table is a large share of the work on both sides. Without it every row is an
   * object, sent as JSONEachRow. The values follow the same JSON rules either way.
   */
  columns?: readonly string[];
}

/**
 * Rows already encoded as RowBinary (ClickHouse's binary row format: a row is its values in
 * `columns` order, each written as its type says; JSON columns as their text, a String). The
 * cheapest form for the engine to read: nothing to parse or escape. RowBinary does not describe
 * itself, so `types` says how the values were written; they must be the columns' own types (a
 * server reads the body with those), which a test of the writer checks against the migrated tables.
 */
export interface RowBinaryRows {
  columns: readonly string[];
  /** One ClickHouse type per column, as `system.columns` shows it. */
  types: readonly string[];
  /** One buffer per row (the insert sends them one after another). None: nothing is inserted. */
  rows: readonly Buffer[];
}

/**
 * Analytics port: the ClickHouse operations the platform needs. Both adapters are the same
 * @clickhouse/client code; only the connection differs (HTTP to a server, or chdb in-process).
 */
export interface Analytics {
  /** DDL and other statements without a result. */
  command(sql: string, params?: Record<string, unknown>): Promise<void>;
  /** Inserts rows: objects (JSONEachRow), or value arrays in `opts.columns` order (JSONCompactEachRow). */
  insert(table: string, rows: object[], opts?: InsertOptions): Promise<void>;
  /** Inserts rows encoded as RowBinary, with the same settings (and dedup token) as `insert`. */
  insertRowBinary(table: string, block: RowBinaryRows, opts?: Pick<InsertOptions, 'dedupToken'>): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: Record<string, unknown>): Promise<T[]>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
