import { createChdbConnection } from 'chdb/connection';
import { readFileSync } from 'node:fs';
import { eventRow } from '@evp/segmenter';
import { pageEvent } from '../../services/segmenter/src/test-fixtures';
async function main() {
  const conn: any = createChdbConnection({ path: ':memory:' });
  const N = 50000;
  const ddl = readFileSync('deploy/clickhouse/migrations/001_events.sql', 'utf8').split('\n').filter((l) => !l.startsWith('--')).join('\n').replace(/;\s*$/, '');
  await conn.chdb.queryAsync(ddl);
  await conn.chdb.queryAsync('CREATE TABLE events_null AS events ENGINE = Null');
  await conn.chdb.queryAsync(ddl.replace('IF NOT EXISTS events', 'events_nojson').replace(/props\s+JSON,/, 'props String,').replace(/client\s+JSON COMMENT '[^']*'/, 'client String'));
  await conn.chdb.queryAsync('CREATE TABLE events_nojson_null AS events_nojson ENGINE = Null');
  const rows = Array.from({ length: N }, (_, i) => eventRow({ ...pageEvent, event_id: `e${i}`, user_id: `u${i % 5000}`, time: pageEvent.time + i * 10, props: { path: `/p/${i % 50}`, title: 'T', duration: 1.5, render_time: 120 + (i % 7) } }));
  const body = Buffer.from(rows.map((r) => JSON.stringify(r)).join('\n'));
  const sbody = Buffer.from(rows.map((r) => JSON.stringify({ ...r, props: JSON.stringify(r.props), client: JSON.stringify(r.client) })).join('\n'));
  const settings = { input_format_try_infer_dates: 0, input_format_try_infer_datetimes: 0 };
  for (const [table, b] of [['events_null', body], ['events', body], ['events_nojson_null', sbody], ['events_nojson', sbody], ['events', body]] as const) {
    const t = performance.now();
    await conn.chdb.rawInsert({ table, values: b, format: 'JSONEachRow', settings });
    console.log(table, 'rows/s', Math.round(N / ((performance.now() - t) / 1000)));
  }
  const r = await conn.chdb.queryAsync("SELECT getSetting('max_threads') mt, getSetting('input_format_parallel_parsing') pp", { format: 'JSONEachRow' });
  console.log(r.text());
  await conn.close();
}
main().catch((e) => { console.error(e); process.exit(1); });
