/**
 * The sink's read path alone (issue 43): each `events.core` message's Avro bytes → its RowBinary row
 * (readSinkMessage, the fast transcoder and the retention stamp), without the bus or the insert, so
 * the JS cost per event and its garbage are not lost in chdb's share of bench/sink/run.ts.
 *
 *   npx tsx bench/sink/read-path.ts [--rows 100000] [--rounds 5] [--before <dir>]
 *
 * Sides, in rotating order per round, on the same messages: **read** (this tree's readSinkMessage),
 * **before** (`--before <dir>`: an earlier commit's tree, prepared as in bench/validator/README.md,
 * its own readSinkMessage on the same messages, checked first to write the same rows), and the
 * baseline **copy** (Buffer.from of each message's bytes: the least a read path can allocate per
 * message). Each side reports CPU µs per event, young-generation collections (scavenges) and GC ms
 * per 100,000 events (PerformanceObserver 'gc' entries): the scavenges are the allocation figure.
 */
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { resolve } from 'node:path';
import { topics, type BusMessage } from '@evp/core';
import { createInProcessRegistry } from '@evp/embedded';
import { blockEventSchema, blockSubject, canonicalToAvro } from '@evp/schemas';
import { readSinkMessage, sinkReadState } from '../../services/segmenter/src/sink/read';
import { makeEvents } from './dataset';
import { numberOption, option } from '../options';

const ROWS = numberOption('rows', 100_000);
const ROUNDS = numberOption('rounds', 5);
const BEFORE = option('before');

type Read = typeof readSinkMessage;
type State = ReturnType<typeof sinkReadState>;
interface Side {
  name: string;
  pass: (messages: readonly BusMessage[]) => Promise<number>;
}

let minor = 0;
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if ((e as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) minor++;
    gcMs += e.duration;
  }
}).observe({ entryTypes: ['gc'] });

/** Reads every message into one state, as the sink does; the sum of the rows' bytes, so nothing is optimised away. */
function readerSide(name: string, read: Read, state: State): Side {
  return {
    name,
    async pass(messages) {
      let bytes = 0;
      for (const m of messages) {
        const r = await read(m, state, false);
        if ('unreadable' in r) throw new Error(`${name}: unreadable ${r.unreadable.rule}`);
        bytes += (r.row as Buffer).length;
      }
      return bytes;
    },
  };
}

const copySide: Side = {
  name: 'copy',
  async pass(messages) {
    let bytes = 0;
    for (const m of messages) bytes += Buffer.from(m.value).length;
    return bytes;
  },
};

async function measured(side: Side, messages: readonly BusMessage[]): Promise<{ us: number; minor: number; gcMs: number }> {
  await new Promise((r) => setImmediate(r));
  const [m0, g0] = [minor, gcMs];
  const cpu0 = process.cpuUsage();
  await side.pass(messages);
  const cpu = process.cpuUsage(cpu0);
  // gc entries are delivered asynchronously: let them in before reading the counters.
  await new Promise((r) => setTimeout(r, 20));
  const per = 100_000 / messages.length;
  return { us: (cpu.user + cpu.system) / messages.length, minor: (minor - m0) * per, gcMs: (gcMs - g0) * per };
}

async function main(): Promise<void> {
  const registry = createInProcessRegistry();
  const topic = topics.events('core');
  const id = await registry.register(blockSubject(topic), blockEventSchema('core') as object);
  const events = makeEvents(ROWS);
  const messages: BusMessage[] = await Promise.all(
    events.map(async (e, i) => ({
      topic,
      partition: 0,
      offset: String(i),
      key: `${e.app_id}:${e.user_id}`,
      value: await registry.encode(id, canonicalToAvro(e)),
      headers: {},
      timestamp: e.received_at,
    })),
  );
  const sides: Side[] = [readerSide('read', readSinkMessage, sinkReadState(registry)), copySide];
  if (BEFORE !== undefined) {
    const mod = (await import(resolve(BEFORE, 'services/segmenter/src/sink/read.ts'))) as { readSinkMessage: Read; sinkReadState: typeof sinkReadState };
    const before = readerSide('before', mod.readSinkMessage, mod.sinkReadState(registry));
    // Same rows, byte for byte, on a sample.
    const [now, then] = [sinkReadState(registry), mod.sinkReadState(registry)];
    for (const m of messages.slice(0, 2_000)) {
      const [a, b] = [await readSinkMessage(m, now, false), await mod.readSinkMessage(m, then, false)];
      if (!('row' in a) || !('row' in b) || !(a.row as Buffer).equals(b.row as Buffer)) throw new Error(`before and after disagree at offset ${m.offset}`);
    }
    sides.push(before);
  }
  console.log(`${ROWS} events.core messages, ${ROUNDS} rounds; node ${process.version}`);
  for (const s of sides) await s.pass(messages); // warm-up (JIT, transcoders)
  const results = new Map<string, { us: number; minor: number; gcMs: number }[]>(sides.map((s) => [s.name, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const line: string[] = [];
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(r + k) % sides.length] as Side;
      const m = await measured(side, messages);
      results.get(side.name)?.push(m);
      line.push(`${side.name} ${m.us.toFixed(2)} µs/event, ${m.minor.toFixed(0)} scavenges, ${m.gcMs.toFixed(1)} GC ms per 100k`);
    }
    console.log(`round ${r + 1}: ${line.join('; ')}`);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  const med = (name: string, k: 'us' | 'minor' | 'gcMs') => median((results.get(name) ?? []).map((m) => m[k]));
  console.log('\nmedians:');
  for (const s of sides)
    console.log(
      `  ${s.name}: ${med(s.name, 'us').toFixed(2)} µs/event, ${med(s.name, 'minor').toFixed(0)} scavenges and ${med(s.name, 'gcMs').toFixed(1)} GC ms per 100k events`,
    );
  console.log(`  read / copy: ${(med('read', 'us') / med('copy', 'us')).toFixed(1)}× the CPU of a copy per message`);
  if (BEFORE !== undefined)
    console.log(
      `  read / before: ${(med('read', 'us') / med('before', 'us')).toFixed(3)} CPU, ${(med('read', 'minor') / med('before', 'minor')).toFixed(3)} scavenges, ${(med('read', 'gcMs') / med('before', 'gcMs')).toFixed(3)} GC ms`,
    );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
