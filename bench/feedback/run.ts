/**
 * The action store's feedback consumer (issue 43): its CPU per `events.core` message when it decodes
 * every message (messages without the `name` header, as before the header existed) against when it
 * skips, undecoded, every message the header names as another event (the production path). One run,
 * both phases, alternating per round. Not part of the test run.
 *
 *   npx tsx bench/feedback/run.ts [--events 100000] [--every 100] [--rounds 3]
 *
 * The stream: the sink bench's page/app/media events with one in `--every` a `nudge_response`, as
 * Avro messages (Confluent wire format, the in-process registry) on a one-partition `events.core` of
 * the in-process bus, consumed by `startFeedbackConsumer` with the production decode (registry →
 * canonicalFromAvro) into the in-memory action store. One partition and a feedback event last, so
 * the last feedback counted means every message was read. The figure is the process CPU (user +
 * system) per message from the consumer's start to the last feedback handed to the store.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createLogger, topics } from '@evp/core';
import { InMemoryActionStore, createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import { blockEventSchema, blockSubject, canonicalFromAvro, canonicalToAvro, type CanonicalEvent } from '@evp/schemas';
import { startFeedbackConsumer } from '@evp/action-store';
import { systemClock } from '@evp/actions';
import { makeEvents } from '../sink/dataset';
import { numberOption } from '../options';

const EVENTS = numberOption('events', 100_000);
const EVERY = numberOption('every', 100);
const ROUNDS = numberOption('rounds', 3);

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** The stream: one event in EVERY a nudge_response (the last one among them). */
function stream(): CanonicalEvent[] {
  return makeEvents(EVENTS).map((e, i) =>
    (i + 1) % EVERY === 0 ? { ...e, name: 'nudge_response', props: { ref: `${i}:1`, time: String(e.time), response: 'shown' } } : e,
  );
}

interface Phase {
  cpuUsPerEvent: number;
  decoded: number;
}

async function phase(events: CanonicalEvent[], withNameHeader: boolean): Promise<Phase> {
  const bus = createInProcessBus({ maxBatchSize: 1_000 });
  await bus.ensureTopics([{ name: topics.events('core'), partitions: 1 }]);
  const registry = createInProcessRegistry();
  const topic = topics.events('core');
  const id = await registry.register(blockSubject(topic), blockEventSchema('core') as object);
  const producer = await bus.producer();
  const messages = await Promise.all(
    events.map(async (e) => ({
      key: `${e.app_id}:${e.user_id}`,
      value: await registry.encode(id, canonicalToAvro(e)),
      headers: { app_id: e.app_id, event_id: e.event_id, ...(withNameHeader ? { name: e.name } : {}) },
    })),
  );
  for (let i = 0; i < messages.length; i += 10_000) await producer.send(topic, messages.slice(i, i + 10_000));
  await producer.close();
  const feedback = events.filter((e) => e.name === 'nudge_response').length;
  // Feedback handed to the store, counted by wrapping it (the consumer's metrics are prom-client's, not a bench dependency).
  const store = new InMemoryActionStore({ clock: systemClock() });
  const record = store.recordFeedback.bind(store);
  let counted = 0;
  store.recordFeedback = async (appId, fb) => {
    counted++;
    return record(appId, fb);
  };
  let decoded = 0;
  collectGarbage();
  const cpu = process.cpuUsage();
  const sub = await startFeedbackConsumer({
    bus,
    store,
    logger: createLogger('bench', 'silent'),
    decode: async (value) => {
      decoded++;
      return canonicalFromAvro((await registry.decode(value)) as Record<string, unknown>);
    },
  });
  const deadline = Date.now() + 300_000;
  while (counted < feedback) {
    if (Date.now() > deadline) throw new Error(`feedback: ${counted} of ${feedback} counted after 300 s`);
    await new Promise((r) => setTimeout(r, 2));
  }
  const used = process.cpuUsage(cpu);
  await sub.stop();
  await bus.close();
  return { cpuUsPerEvent: (used.user + used.system) / events.length, decoded };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main() {
  const events = stream();
  const before: Phase[] = [];
  const after: Phase[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate which goes first, so warm-up favours neither.
    const order = r % 2 ? [true, false] : [false, true];
    for (const header of order) {
      const p = await phase(events, header);
      (header ? after : before).push(p);
      console.log(`round ${r + 1} ${header ? 'after (name header) ' : 'before (decode all)'}: ${p.cpuUsPerEvent.toFixed(2)} µs/event, ${p.decoded} decoded`);
    }
  }
  const b = median(before.map((p) => p.cpuUsPerEvent));
  const a = median(after.map((p) => p.cpuUsPerEvent));
  console.log(`\n${EVENTS} events, one in ${EVERY} nudge_response, ${ROUNDS} rounds (medians):`);
  console.log(`before (decode all)  ${b.toFixed(2)} µs/event, ${before[0]?.decoded} decoded`);
  console.log(`after (name header)  ${a.toFixed(2)} µs/event, ${after[0]?.decoded} decoded`);
  console.log(`ratio after / before ${(a / b).toFixed(3)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
