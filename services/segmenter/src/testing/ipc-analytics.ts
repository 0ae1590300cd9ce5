import type { ChildProcess } from 'node:child_process';
import { InfraError, errorMessage, isRetriable, type Analytics } from '@evp/core';

/**
 * The Analytics port across a process boundary, for tests that kill a replica with SIGKILL: chdb
 * binds its data to one process, so a replica in a child process reaches the parent's chdb through
 * the IPC channel, as a replica reaches a ClickHouse server over the network. A statement the child
 * sent before it died still completes in the parent, as it would on a server.
 */
type Request = { id: number; op: 'query' | 'insert' | 'insertRowBinary' | 'command'; args: unknown[] };
/** RowBinary rows through the channel (JSON): each row's bytes as base64. */
type WireRowBinary = { columns: string[]; types: string[]; rows: string[] };
type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; message: string; retriable: boolean };

/** Parent side: answers the child's statements with `analytics`. */
export function serveAnalyticsOverIpc(child: ChildProcess, analytics: Analytics): void {
  child.on('message', (m: Request) => {
    const run = async (): Promise<unknown> => {
      switch (m.op) {
        case 'query':
          return analytics.query(m.args[0] as string, m.args[1] as Record<string, unknown>);
        case 'insert':
          return analytics.insert(m.args[0] as string, m.args[1] as object[], m.args[2] as { dedupToken?: string });
        case 'insertRowBinary': {
          const w = m.args[1] as WireRowBinary;
          const block = { columns: w.columns, types: w.types, rows: w.rows.map((r) => Buffer.from(r, 'base64')) };
          return analytics.insertRowBinary(m.args[0] as string, block, m.args[2] as { dedupToken?: string });
        }
        case 'command':
          return analytics.command(m.args[0] as string, m.args[1] as Record<string, unknown>);
      }
    };
    run().then(
      (result) => child.connected && child.send({ id: m.id, ok: true, result: result ?? null } satisfies Reply),
      (err: unknown) => child.connected && child.send({ id: m.id, ok: false, message: errorMessage(err), retriable: isRetriable(err) } satisfies Reply),
    );
  });
}

/** Child side: the Analytics port whose statements run in the parent. */
export function analyticsOverIpc(proc: NodeJS.Process): Analytics {
  let next = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  proc.on('message', (r: Reply) => {
    const w = waiting.get(r.id);
    waiting.delete(r.id);
    if (r.ok) w?.resolve(r.result);
    else w?.reject(new InfraError('clickhouse', r.message, { retriable: r.retriable }));
  });
  const call = (op: Request['op'], ...args: unknown[]) =>
    new Promise<unknown>((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      proc.send?.({ id, op, args } satisfies Request);
    });
  return {
    query: async <T>(sql: string, params?: Record<string, unknown>) => (await call('query', sql, params ?? {})) as T[],
    insert: async (table, rows, opts) => void (await call('insert', table, rows, opts ?? {})),
    insertRowBinary: async (table, block, opts) => {
      const wire: WireRowBinary = { columns: [...block.columns], types: [...block.types], rows: block.rows.map((r) => r.toString('base64')) };
      await call('insertRowBinary', table, wire, opts ?? {});
    },
    command: async (sql, params) => void (await call('command', sql, params ?? {})),
    ping: async () => true,
    close: async () => undefined,
  };
}
