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
  const rows = Array.from({ length: N }, (_, i) => eventRow({ ...pageEvent, event_id: `e${i}`, user_id: `u${i % 5000}`, time: pageEvent.time + i * 10, props: { path: `/p/${i % 50}`, title: 'T', duration: 1.5, render_time: 120 + (i % 7) } }));
  const cols = Object.keys(rows[0]!);
  let t = performance.now();
  const compact = Buffer.from(rows.map((r) => JSON.stringify(cols.map((c) => (r as any)[c]))).join('\n'));
  console.log('js compact build ms', (performance.now() - t).toFixed(0));
  t = performance.now();
  const each = Buffer.from(rows.map((r) => JSON.stringify(r)).join('\n'));
  console.log('js each build ms', (performance.now() - t).toFixed(0));
  const settings = { input_format_try_infer_dates: 0, input_format_try_infer_datetimes: 0 };
  for (let k = 0; k < 2; k++) {
    for (const [name, format, b, extra] of [['each', 'JSONCompactEachRow', compact, {}], ['eachrow', 'JSONEachRow', each, {}], ['compact', 'JSONCompactEachRow', compact, {}], ['eachrow no-parallel', 'JSONEachRow', each, { input_format_parallel_parsing: 0 }], ['eachrow threads1', 'JSONEachRow', each, { max_insert_threads: 1, max_threads: 1 }]] as const) {
      const t = performance.now();
      await conn.chdb.rawInsert({ table: 'events_null', values: b, format, columns: format === 'JSONCompactEachRow' ? cols : undefined, settings: { ...settings, ...extra } });
      console.log(name, format, 'rows/s', Math.round(N / ((performance.now() - t) / 1000)));
    }
  }
  await conn.close();
}
main().catch((e) => { console.error(e); process.exit(1); });
