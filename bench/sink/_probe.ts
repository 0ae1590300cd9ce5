import { createClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
async function main() {
  const c = createClient({ connection: createChdbConnection({ path: ':memory:' }) } as any);
  const N = 20000;
  await c.command({ query: 'CREATE TABLE s (id String, a LowCardinality(String), t DateTime64(3, \'UTC\'), n Int32) ENGINE = MergeTree ORDER BY id' });
  await c.command({ query: 'CREATE TABLE j (id String, a LowCardinality(String), t DateTime64(3, \'UTC\'), n Int32, p JSON) ENGINE = MergeTree ORDER BY id' });
  await c.command({ query: 'CREATE TABLE ps (id String, a LowCardinality(String), t DateTime64(3, \'UTC\'), n Int32, p String) ENGINE = MergeTree ORDER BY id' });
  const rows = Array.from({ length: N }, (_, i) => ({ id: `id-${i}`, a: `app-${i % 3}`, t: '2024-03-01 00:00:00.123', n: i, p: { path: `/p/${i % 50}`, title: 'T', duration: 1.5, render_time: 120 } }));
  const flat = rows.map(({ p, ...r }) => r);
  const str = rows.map((r) => ({ ...r, p: JSON.stringify(r.p) }));
  let t = performance.now(); const body = flat.map((r) => JSON.stringify(r)).join('\n'); console.log('stringify ms', (performance.now() - t).toFixed(1), body.length);
  for (const [table, values] of [['s', flat], ['j', rows], ['ps', str]] as const) {
    t = performance.now();
    await c.insert({ table, values: values as any, format: 'JSONEachRow' });
    console.log(table, 'client insert rows/s', Math.round(N / ((performance.now() - t) / 1000)));
  }
  // raw chdb path, no client
  const conn: any = createChdbConnection({ path: ':memory:' });
  const text = flat.map((r) => JSON.stringify(r)).join('\n');
  t = performance.now();
  await conn.insert({ query: 'INSERT INTO s FORMAT JSONEachRow', values: text });
  console.log('raw conn insert rows/s', Math.round(N / ((performance.now() - t) / 1000)));
  t = performance.now();
  await conn.chdb.rawInsert?.('s', text, 'JSONEachRow');
  console.log('rawInsert? rows/s', Math.round(N / ((performance.now() - t) / 1000)), typeof conn.chdb.rawInsert);
  await c.close();
}
main().catch((e) => { console.error(e); process.exit(1); });
