import { createInProcessRegistry } from '@evp/embedded';
import { blockEventSchema, blockSubject, canonicalFromAvro, canonicalToAvro } from '@evp/schemas';
import { eventRow } from '@evp/segmenter';
import { pageEvent } from '../../services/segmenter/src/test-fixtures';
async function main() {
  const N = 100000;
  const registry = createInProcessRegistry();
  const id = await registry.register(blockSubject('events.core'), blockEventSchema('core') as object);
  const events = Array.from({ length: N }, (_, i) => ({ ...pageEvent, event_id: `e${i}`, user_id: `u${i % 5000}`, time: pageEvent.time + i * 10 }));
  const bufs = await Promise.all(events.map((e) => registry.encode(id, canonicalToAvro(e))));
  let t = performance.now();
  const decoded: any[] = [];
  for (const b of bufs) decoded.push(await registry.decode(b));
  console.log('decode ms', (performance.now() - t).toFixed(0));
  t = performance.now();
  const canon = decoded.map((d) => canonicalFromAvro(d));
  console.log('canonicalFromAvro ms', (performance.now() - t).toFixed(0));
  t = performance.now();
  const rows = canon.map(eventRow);
  console.log('eventRow ms', (performance.now() - t).toFixed(0));
  t = performance.now();
  const s = rows.map((r) => JSON.stringify(r)).join('\n');
  console.log('stringify ms', (performance.now() - t).toFixed(0), s.length);
}
main();
