import { InfraError, errorMessage, type Analytics, type RowBinaryRows } from '@evp/core';
import { JsonRow } from '@evp/clickhouse';

/** A row on the wire: a JsonRow as its text (the sink's prepared rows), anything else as itself. */
type WireRow = { json: string } | { value: object };

const toWire = (rows: object[]): WireRow[] => rows.map((r) => (r instanceof JsonRow ? { json: r.json } : { value: r }));
/** The rows as the replica handed them to `insert`, for the store's own adapter (query-server.ts). */
export const fromWire = (rows: WireRow[]): object[] => rows.map((r) => ('json' in r ? new JsonRow(r.json) : r.value));

/** RowBinary rows on the wire: each row's bytes as base64 (JSON carries no bytes). */
export interface WireRowBinary {
  columns: string[];
  types: string[];
  rows: string[];
}
const rowBinaryToWire = (b: RowBinaryRows): WireRowBinary => ({ columns: [...b.columns], types: [...b.types], rows: b.rows.map((r) => r.toString('base64')) });
export const rowBinaryFromWire = (w: WireRowBinary): RowBinaryRows => ({
  columns: w.columns,
  types: w.types,
  rows: w.rows.map((r) => Buffer.from(r, 'base64')),
});

/**
 * Analytics over a chdb store's side port (query-server.ts): what a `segmenter` replica of the chdb
 * sink uses in place of a ClickHouse server. Inserts reach the store's adapter with the rows and
 * options the replica gave (a JsonRow stays one), so they land as they would in-process, dedup token
 * and all. Failures keep their meaning: the store's InfraErrors come back with their message and
 * retriable flag; the store unreachable is retriable, as a ClickHouse server away would be.
 */
export function createRemoteAnalytics(url: string, timeoutMs = 120_000): Analytics {
  const call = async <T>(path: string, body: unknown): Promise<T> => {
    let res: Response;
    try {
      res = await fetch(`${url}${path}`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'Content-Type': 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new InfraError('clickhouse', `chdb store ${url} unreachable: ${errorMessage(err)}`, { retriable: true });
    }
    const out = (await res.json().catch(() => ({}))) as T & { error?: string; retriable?: boolean; dependency?: string };
    if (res.ok) return out;
    const message = out.error ?? `${path} answered ${res.status}`;
    const prefix = out.dependency === undefined ? '' : `${out.dependency}: `;
    throw new InfraError('clickhouse', message.startsWith(prefix) ? message.slice(prefix.length) : message, { retriable: out.retriable ?? true });
  };
  return {
    command: async (sql, params) => void (await call('/command', { sql, params })),
    query: (sql, params) => call('/query', { sql, params }),
    insert: async (table, rows, opts) => void (await call('/insert', { table, rows: toWire(rows), opts: opts ?? {} })),
    insertRowBinary: async (table, block, opts) => void (await call('/insert-rowbinary', { table, block: rowBinaryToWire(block), opts: opts ?? {} })),
    ping: () =>
      fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) }).then(
        async (r) => {
          await r.arrayBuffer();
          return r.ok;
        },
        () => false,
      ),
    close: async () => undefined,
  };
}
