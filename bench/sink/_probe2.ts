import { createClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import { readFileSync } from 'node:fs';
import { eventRow } from '@evp/segmenter';
import { pageEvent } from '../../services/segmenter/src/test-fixtures';
async function main() {
  const conn: any = createChdbConnection({ path: ':memory:' });
  const c = createClient({ connection: conn } as any);
  const N = 20000;
  const ddl = readFileSync('deploy/clickhouse/migrations/001_events.sql', 'utf8').split('\n').filter((l) => !l.startsWith('--')).join('\n').replace(/;\s*$/, '');
  const variants: Record<string, string> = {
    asis: ddl.replace('IF NOT EXISTS events', 'v_asis'),
    client_str: ddl.replace('IF NOT EXISTS events', 'v_client_str').replace(/client\s+JSON COMMENT '[^']*'/, 'client String'),
    both_str: ddl.replace('IF NOT EXISTS events', 'v_both_str').replace(/client\s+JSON COMMENT '[^']*'/, 'client String').replace(/props\s+JSON,/, 'props String,'),
    plain_mt: ddl.replace('IF NOT EXISTS events', 'v_plain').replace('ReplacingMergeTree', 'MergeTree').replace(/client\s+JSON COMMENT '[^']*'/, 'client String').replace(/props\s+JSON,/, 'props String,'),
  };
  for (const v of Object.values(variants)) await c.command({ query: v });
  const rows = Array.from({ length: N }, (_, i) => eventRow({ ...pageEvent, event_id: `e${i}`, user_id: `u${i % 5000}`, time: pageEvent.time + i * 10, props: { path: `/p/${i % 50}`, title: 'T', duration: 1.5, render_time: 120 + (i % 7) } }));
  const strRows = rows.map((r) => ({ ...r, props: JSON.stringify(r.props), client: JSON.stringify(r.client) }));
  const clientStr = rows.map((r) => ({ ...r, client: JSON.stringify(r.client) }));
  const settings = { input_format_try_infer_dates: 0, input_format_try_infer_datetimes: 0 } as any;
  for (const [name, table, values] of [['asis', 'v_asis', rows], ['client_str', 'v_client_str', clientStr], ['both_str', 'v_both_str', strRows], ['plain_mt', 'v_plain', strRows], ['asis-again', 'v_asis', rows]] as const) {
    const t = performance.now();
    for (let i = 0; i < N; i += 10000) await c.insert({ table, values: (values as any[]).slice(i, i + 10000), format: 'JSONEachRow', clickhouse_settings: settings });
    console.log(name, 'rows/s', Math.round(N / ((performance.now() - t) / 1000)));
  }
  // time the engine alone on a prepared body
  const body = rows.map((r) => JSON.stringify(r)).join('\n');
  let t = performance.now();
  await conn.insert({ query: 'INSERT INTO v_asis FORMAT JSONEachRow', values: body });
  console.log('engine only asis rows/s', Math.round(N / ((performance.now() - t) / 1000)));
  const body2 = strRows.map((r) => JSON.stringify(r)).join('\n');
  t = performance.now();
  await conn.insert({ query: 'INSERT INTO v_both_str FORMAT JSONEachRow', values: body2 });
  console.log('engine only both_str rows/s', Math.round(N / ((performance.now() - t) / 1000)));
  t = performance.now();
  await conn.insert({ query: 'INSERT INTO v_asis SETTINGS input_format_parallel_parsing = 0 FORMAT JSONEachRow', values: body });
  console.log('engine only asis no parallel parsing rows/s', Math.round(N / ((performance.now() - t) / 1000)));
  await c.close();
}
main().catch((e) => { console.error(e); process.exit(1); });
