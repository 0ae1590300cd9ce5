/**
 * Analytics port: the ClickHouse operations the platform needs. Both adapters are the same
 * @clickhouse/client code; only the connection differs (HTTP to a server, or chdb in-process).
 */
export interface Analytics {
  /** DDL and other statements without a result. */
  command(sql: string, params?: Record<string, unknown>): Promise<void>;
  /** Inserts rows as JSONEachRow. `dedupToken` makes a retried insert of the same block a no-op. */
  insert(table: string, rows: object[], opts?: { dedupToken?: string }): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: Record<string, unknown>): Promise<T[]>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
