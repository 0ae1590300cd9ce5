import { InfraError, type Analytics } from '@evp/core';

export interface InsertFaults {
  /** Inserts into `table` refused outright, counted from the first. */
  refuse: number;
  /** After those, inserts that apply their first half of rows and then fail. */
  half: number;
  table: string;
}

/**
 * Wraps an Analytics so inserts fail the way a ClickHouse server can: refused (nothing applied), or
 * half applied (the first rows land, as when a server commits some blocks of an insert and then
 * dies) and then failed. The half lands without the caller's dedup token, because a server that
 * committed part of an insert committed it as separate blocks; a retry must not lose the rest.
 */
export function withInsertFaults(inner: Analytics, faults: InsertFaults, onFault: (kind: 'refused' | 'half') => void): Analytics {
  let refuse = faults.refuse;
  let half = faults.half;
  /** The fault this insert meets, counted; `half` only for more than one row. */
  const fault = (table: string, rows: number): 'refused' | 'half' | undefined => {
    if (table === faults.table && refuse > 0) {
      refuse -= 1;
      onFault('refused');
      return 'refused';
    }
    if (table === faults.table && half > 0 && rows > 1) {
      half -= 1;
      onFault('half');
      return 'half';
    }
    return undefined;
  };
  const refused = () => new InfraError('clickhouse', 'injected fault: insert refused', { retriable: true });
  const halfApplied = () => new InfraError('clickhouse', 'injected fault: insert half applied', { retriable: true });
  return {
    command: (sql, params) => inner.command(sql, params),
    query: (sql, params) => inner.query(sql, params),
    ping: () => inner.ping(),
    close: () => inner.close(),
    async insert(table, rows, opts) {
      const f = fault(table, rows.length);
      if (f === 'refused') throw refused();
      if (f === 'half') {
        await inner.insert(table, rows.slice(0, Math.floor(rows.length / 2)), opts?.columns ? { columns: opts.columns } : {});
        throw halfApplied();
      }
      return inner.insert(table, rows, opts);
    },
    async insertRowBinary(table, block, opts) {
      const f = fault(table, block.rows.length);
      if (f === 'refused') throw refused();
      if (f === 'half') {
        await inner.insertRowBinary(table, { ...block, rows: block.rows.slice(0, Math.floor(block.rows.length / 2)) });
        throw halfApplied();
      }
      return inner.insertRowBinary(table, block, opts);
    },
  };
}
