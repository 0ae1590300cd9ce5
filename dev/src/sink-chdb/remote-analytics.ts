import { InfraError, errorMessage, type Analytics } from '@evp/core';
import { stringifyRow } from '@evp/clickhouse';

/**
 * Analytics over a chdb store's side port (query-server.ts): what a `segmenter` replica of the chdb
 * sink uses in place of a ClickHouse server. Rows travel as the JSON text the in-process adapter
 * would hand chdb (stringifyRow), so an insert lands exactly as it would locally, dedup token and
 * all. Every failure (the store away, a query error) is a retriable InfraError, as a ClickHouse
 * server's would be.
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
    const out = (await res.json().catch(() => ({}))) as T & { error?: string };
    if (!res.ok) throw new InfraError('clickhouse', `chdb store ${path}: ${res.status} ${out.error ?? ''}`, { retriable: true });
    return out;
  };
  return {
    command: async (sql, params) => void (await call('/command', { sql, params })),
    query: (sql, params) => call('/query', { sql, params }),
    insert: async (table, rows, opts) => void (await call('/insert', { table, rows: rows.map(stringifyRow), opts: opts ?? {} })),
    ping: () =>
      fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.ok,
        () => false,
      ),
    close: async () => undefined,
  };
}
