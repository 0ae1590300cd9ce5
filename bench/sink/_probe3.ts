import { createChdbConnection } from 'chdb/connection';
import { readFileSync } from 'node:fs';
import { eventRow } from '@evp/segmenter';
import { pageEvent } from '../../services/segmenter/src/test-fixtures';
async function main() {
  const conn: any = createChdbConnection({ path: ':memory:' });
  const N = 50000;
  const ddl = readFileSync('deploy/clickhouse/migrations/001_events.sql', 'utf8').split('\n').filter((l) => !l.startsWith('--')).join('\n').replace(/;\s*$/, '');
  await conn.chdb.queryAsync(ddl);
  await conn.chdb.queryAsync('CREATE TABLE s (id String, a LowCardinality(String), t DateTime64(3, \'UTC\'), n Int32) ENGINE = MergeTree ORDER BY id');
  const rows = Array.from({ length: N }, (_, i) => eventRow({ ...pageEvent, event_id: `e${i}`, user_id: `u${i % 5000}`, time: pageEvent.time + i * 10, props: { path: `/p/${i % 50}`, title: 'T', duration: 1.5, render_time: 120 + (i % 7) } }));
  const body = rows.map((r) => JSON.stringify(r)).join('\n');
  const settings = { input_format_try_infer_dates: 0, input_format_try_infer_datetimes: 0 };
  let t = performance.now();
  await conn.chdb.rawInsert({ table: 'events', values: Buffer.from(body), format: 'JSONEachRow', settings });
  console.log('rawInsert events rows/s', Math.round(N / ((performance.now() - t) / 1000)), 'MB', (body.length / 1e6).toFixed(1));
  t = performance.now();
  await conn.insert({ query: 'INSERT INTO events FORMAT JSONEachRow', values: body });
  console.log('inline insert events rows/s', Math.round(N / ((performance.now() - t) / 1000)));
  const sbody = Array.from({ length: N }, (_, i) => JSON.stringify({ id: `id-${i}`, a: 'app', t: '2024-03-01 00:00:00.123', n: i, pad: 'x'.repeat(600) })).join('\n');
  t = performance.now();
  await conn.chdb.rawInsert({ table: 's', values: Buffer.from(sbody), format: 'JSONEachRow', settings: { input_format_skip_unknown_fields: 1 } });
  console.log('rawInsert simple (700B rows, skipped pad) rows/s', Math.round(N / ((performance.now() - t) / 1000)));
  t = performance.now();
  await conn.insert({ query: 'INSERT INTO s SETTINGS input_format_skip_unknown_fields = 1 FORMAT JSONEachRow', values: sbody });
  console.log('inline simple (700B rows) rows/s', Math.round(N / ((performance.now() - t) / 1000)));
  await conn.close();
}
main().catch((e) => { console.error(e); process.exit(1); });
