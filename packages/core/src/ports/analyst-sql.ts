/**
 * Analyst SQL port: read-only SQL over the analytics tables, scoped to one app, answered in a
 * ClickHouse output format. The embedded adapter runs it on chdb with a guard (packages/embedded's
 * analyst engine); against a real ClickHouse server the same keys map to ClickHouse users with row
 * policies, and ClickHouse itself enforces the scope (docs/analytics.md, "docker-compose").
 */
export interface AnalystQuery {
  /** The app whose rows the query may see: the key's app, never the request's. */
  appId: string;
  sql: string;
  /** ClickHouse output format used when the SQL has no FORMAT clause (e.g. TabSeparated, JSON). */
  format: string;
  /** `{name:Type}` placeholders' values, as text (the HTTP interface's `param_name`). */
  params: Record<string, string>;
  /**
   * The reading key, for an adapter that runs the statement as the key's own user (a ClickHouse
   * server: user `key_<id>`, the key its password). The embedded adapter scopes by appId alone.
   */
  credentials?: { keyId: string; key: string };
}

export interface AnalystResult {
  body: Buffer;
  /** The format the body is in: the query's own FORMAT clause, else the requested one. */
  format: string;
  readRows: number;
  readBytes: number;
  elapsedNs: number;
}

export interface AnalystSql {
  query(q: AnalystQuery): Promise<AnalystResult>;
  close(): Promise<void>;
}

/**
 * A refusal or failure in ClickHouse's own terms (its numeric code and name), so that ClickHouse
 * clients show it as they show a server's: `Code: 164. DB::Exception: … (READONLY)`.
 */
export class ClickHouseFailure extends Error {
  constructor(
    readonly code: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
    this.name = 'ClickHouseFailure';
  }

  /** The body a ClickHouse server answers with. */
  text(): string {
    return `Code: ${this.code}. DB::Exception: ${this.message}. (${this.type})\n`;
  }

  /** chdb throws `Code: N. DB::Exception: … (TYPE)` text (sometimes nested once); anything else is 1001 STD_EXCEPTION. */
  static from(err: unknown): ClickHouseFailure {
    if (err instanceof ClickHouseFailure) return err;
    const text = err instanceof Error ? err.message : String(err);
    const m =
      /^Code: (\d+)\. DB::(?:Errno)?Exception: (?:Code: \d+\. DB::Exception: )?([\s\S]*?)\.? \(([A-Z_]+)\)(?: \(version [^)]*\))?(?:\. \([A-Z_]+\))?\s*$/.exec(
        text,
      );
    if (!m) return new ClickHouseFailure(1001, 'STD_EXCEPTION', text);
    return new ClickHouseFailure(Number(m[1]), m[3] as string, (m[2] as string).replace(/ \(version [^)]*\)$/, ''));
  }
}
