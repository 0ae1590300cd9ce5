import { createInProcessRegistry } from '@evp/embedded';
import { blockEventSchema, blockSubject, canonicalFromAvro, canonicalToAvro } from '@evp/schemas';
import { eventRow } from '@evp/segmenter';
import { formatDateTime64 } from '@evp/clickhouse';
import { pageEvent } from '../../services/segmenter/src/test-fixtures';
async function main() {
  const N = 10000;
  const registry = createInProcessRegistry();
  const id = await registry.register(blockSubject('events.core'), blockEventSchema('core') as object);
  const events = Array.from({ length: N }, (_, i) => ({ ...pageEvent, event_id: `e${i}`, user_id: `u${i % 5000}`, time: pageEvent.time + i * 10 }));
  const bufs = await Promise.all(events.map((e) => registry.encode(id, canonicalToAvro(e))));
  for (let round = 0; round < 5; round++) {
    let t = performance.now();
    const decoded: any[] = [];
    for (const b of bufs) decoded.push(await registry.decode(b));
    const d1 = performance.now() - t; t = performance.now();
    const canon = decoded.map((d) => canonicalFromAvro(d));
    const d2 = performance.now() - t; t = performance.now();
    const rows = canon.map(eventRow);
    const d3 = performance.now() - t; t = performance.now();
    const s = rows.map((r) => JSON.stringify(r)).join('\n');
    const d4 = performance.now() - t; t = performance.now();
    for (let i = 0; i < N * 4; i++) formatDateTime64(1709251212345 + i);
    const d5 = performance.now() - t;
    console.log(`per row µs: decode ${(d1 * 1000 / N).toFixed(1)} canonical ${(d2 * 1000 / N).toFixed(1)} row ${(d3 * 1000 / N).toFixed(1)} stringify ${(d4 * 1000 / N).toFixed(1)} 4xformat ${(d5 * 1000 / N).toFixed(1)}`, s.length > 0);
  }
}
main();
