import { createServer, type IncomingMessage, type Server } from 'node:http';
import { InfraError, errorMessage, type Analytics } from '@evp/core';
import { EVENT_COLUMNS } from '@evp/segmenter';
import type { Registry } from 'prom-client';
import { fromWire, rowBinaryFromWire } from './remote-analytics';

/**
 * The side port of the chdb sink. libchdb binds its data directory to one process, so the fault
 * suite and the pipeline bench cannot open it next to the sink: they ask here instead. 127.0.0.1
 * only, and only in this dev entrypoint (service images never carry chdb).
 *   GET  /healthz, /metrics
 *   POST /query        {sql, params?}  → rows (JSON)
 *   POST /command      {sql}           → {}
 *   POST /insert       {table, rows, opts} → {}: a `segmenter` replica's inserts (remote-analytics.ts)
 *   POST /insert-rowbinary {table, block, opts} → {}: the same for RowBinary rows (base64 per row)
 *   POST /bare-insert  {where, batch}  → {rows, ms}: the `events` rows matching `where` inserted
 *        again into `events_bare` as value arrays (JSONCompactEachRow, like the sink), `batch` rows
 *        per insert; only the inserts are timed. The pipeline bench's reference.
 */
export function startQueryServer(opts: { analytics: Analytics; metrics: Registry; port: number }): Promise<Server> {
  const { analytics } = opts;
  const routes: Record<string, (body: any) => Promise<unknown>> = {
    '/query': (b) => analytics.query(String(b.sql), b.params),
    '/command': async (b) => {
      await analytics.command(String(b.sql), b.params);
      return {};
    },
    // A `segmenter` replica's inserts (remote-analytics.ts): rows as the replica had them.
    '/insert': async (b) => {
      await analytics.insert(String(b.table), fromWire(b.rows), b.opts);
      return {};
    },
    '/insert-rowbinary': async (b) => {
      await analytics.insertRowBinary(String(b.table), rowBinaryFromWire(b.block), b.opts);
      return {};
    },
    '/bare-insert': async (b) => {
      await analytics.command('CREATE TABLE IF NOT EXISTS events_bare AS events');
      await analytics.command('TRUNCATE TABLE events_bare');
      const rows = await analytics.query<Record<string, unknown>>(`SELECT ${EVENT_COLUMNS.join(', ')} FROM events WHERE ${String(b.where)}`);
      const values = rows.map((r) => EVENT_COLUMNS.map((c) => r[c]));
      const batch = Number(b.batch) || 10_000;
      const t0 = performance.now();
      for (let i = 0; i < values.length; i += batch) await analytics.insert('events_bare', values.slice(i, i + batch), { columns: EVENT_COLUMNS });
      const ms = performance.now() - t0;
      await analytics.command('TRUNCATE TABLE events_bare');
      return { rows: values.length, ms };
    },
  };
  const server = createServer((req, res) => {
    const reply = (status: number, body: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/healthz') {
      analytics.ping().then(
        (ok) => reply(ok ? 200 : 503, { clickhouse: ok }),
        () => reply(503, { clickhouse: false }),
      );
      return;
    }
    if (req.url === '/metrics') {
      opts.metrics.metrics().then(
        (m) => res.end(m),
        (err) => reply(500, { error: errorMessage(err) }),
      );
      return;
    }
    const route = req.method === 'POST' ? routes[req.url ?? ''] : undefined;
    if (!route) return reply(404, { error: 'not found' });
    readJson(req)
      .then(route)
      .then(
        (out) => reply(200, out),
        // An InfraError's retriable flag travels with it: a replica retries what a server would let it retry.
        (err) => reply(500, { error: errorMessage(err), ...(err instanceof InfraError ? { retriable: err.retriable, dependency: err.dependency } : {}) }),
      );
  });
  return new Promise((resolve) => server.listen(opts.port, '127.0.0.1', () => resolve(server)));
}

async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
}
