import { DEAD_LETTER_HEADERS as H, InfraError, UnreadableMessageError, deadLetterId, topics, type Bus, type BusMessage, type Subscription } from '@evp/core';
import { uniqueName, waitFor } from '../wait-for';

export interface BusUnderTest {
  bus: Bus;
  close(): Promise<void>;
}

/** One suite for every Bus adapter: what the services rely on, checked with exact values. */
export function describeBusConformance(name: string, make: () => Promise<BusUnderTest>, opts: { timeoutMs?: number } = {}) {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  describe(`Bus conformance: ${name}`, () => {
    let sut: BusUnderTest;
    const subs: Subscription[] = [];
    beforeAll(async () => {
      sut = await make();
    });
    afterEach(async () => {
      await Promise.all(subs.splice(0).map((s) => s.stop()));
    });
    afterAll(async () => {
      await sut.close();
    });

    async function freshTopic(partitions = 3) {
      const topic = uniqueName('conf');
      await sut.bus.ensureTopics([{ name: topic, partitions }]);
      return topic;
    }

    function collect(groupId: string, topics: string[], fail?: (m: BusMessage[]) => boolean) {
      const seen: BusMessage[] = [];
      const attempts: string[][] = [];
      const sub = sut.bus.subscribe({
        groupId,
        topics,
        handleBatch: async (batch) => {
          attempts.push(batch.messages.map((m) => m.offset));
          if (fail?.(batch.messages)) throw new InfraError('test', 'handler failure (test)', { retriable: true });
          seen.push(...batch.messages);
        },
      });
      return { seen, attempts, sub: sub.then((s) => (subs.push(s), s)) };
    }

    it(
      'delivers key, value and headers exactly, in order per key',
      async () => {
        const topic = await freshTopic();
        const producer = await sut.bus.producer();
        const messages = Array.from({ length: 20 }, (_, i) => ({
          key: `user-${i % 4}`,
          value: Buffer.from(JSON.stringify({ n: i })),
          headers: { app_id: 'app-1', n: String(i) },
        }));
        await producer.send(topic, messages);
        await producer.close();
        const { seen, sub } = collect(uniqueName('g'), [topic]);
        await sub;
        await waitFor(() => seen.length >= 20, { timeoutMs, what: '20 messages' });
        expect(seen).toHaveLength(20);
        for (let k = 0; k < 4; k++) {
          const ofKey = seen.filter((m) => m.key === `user-${k}`).map((m) => JSON.parse(m.value.toString()).n);
          expect(ofKey).toEqual([k, k + 4, k + 8, k + 12, k + 16]);
        }
        const first = seen.find((m) => m.headers.n === '0') as BusMessage;
        expect(first.headers).toEqual({ app_id: 'app-1', n: '0' });
        expect(first.topic).toBe(topic);
        expect(first.value.toString()).toBe('{"n":0}');
        expect(typeof first.timestamp).toBe('number');
      },
      timeoutMs * 2,
    );

    it(
      'redelivers a batch whose handler threw a retriable error, then commits it',
      async () => {
        const topic = await freshTopic(1);
        const producer = await sut.bus.producer();
        await producer.send(
          topic,
          [1, 2, 3].map((n) => ({ key: 'k', value: Buffer.from(String(n)) })),
        );
        let failuresLeft = 1;
        const { seen, attempts, sub } = collect(uniqueName('g'), [topic], () => failuresLeft-- > 0);
        await sub;
        await waitFor(() => seen.length >= 3, { timeoutMs, what: 'redelivery' });
        expect(seen.map((m) => m.value.toString())).toEqual(['1', '2', '3']);
        expect(attempts.length).toBeGreaterThanOrEqual(2);
        expect(attempts[0]?.[0]).toBe('0');
        // The retried delivery starts where the failed one did: nothing skipped.
        expect(attempts[1]?.[0]).toBe('0');
        await producer.close();
      },
      timeoutMs * 2,
    );

    it(
      "reports the partition's high watermark with each batch, so a consumer knows its lag",
      async () => {
        const topic = await freshTopic(1);
        const producer = await sut.bus.producer();
        await producer.send(
          topic,
          Array.from({ length: 7 }, (_, i) => ({ value: Buffer.from(String(i)) })),
        );
        const batches: { last: string; highWatermark: string }[] = [];
        const sub = await sut.bus.subscribe({
          groupId: uniqueName('g'),
          topics: [topic],
          handleBatch: async (batch) => {
            batches.push({ last: (batch.messages[batch.messages.length - 1] as BusMessage).offset, highWatermark: batch.highWatermark });
          },
        });
        subs.push(sub);
        await waitFor(() => batches.some((b) => b.last === '6'), { timeoutMs, what: 'the last offset' });
        for (const b of batches) expect(Number(b.highWatermark)).toBeGreaterThan(Number(b.last));
        expect(batches[batches.length - 1]).toEqual({ last: '6', highWatermark: '7' });
        await producer.close();
      },
      timeoutMs * 2,
    );

    it(
      'reports every group’s lag per partition after each batch it handled: 0 once it has drained',
      async () => {
        const topic = await freshTopic(2);
        const producer = await sut.bus.producer();
        // Keys chosen so both partitions get messages whichever partitioner hashes them.
        await producer.send(
          topic,
          Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, value: Buffer.from(String(i)) })),
        );
        const [fast, slow] = [uniqueName('g-fast'), uniqueName('g-slow')];
        const seen = new Map([
          [fast, 0],
          [slow, 0],
        ]);
        let release: () => void = () => undefined;
        const held = new Promise<void>((r) => (release = r));
        for (const groupId of [fast, slow]) {
          subs.push(
            await sut.bus.subscribe({
              groupId,
              topics: [topic],
              handleBatch: async (batch) => {
                // The slow group's first batch waits to be released: until then it has handled nothing, so it reports no lag.
                if (groupId === slow && seen.get(slow) === 0) await held;
                seen.set(groupId, (seen.get(groupId) ?? 0) + batch.messages.length);
              },
            }),
          );
        }
        const lagOf = (group: string) => sut.bus.consumerLag().filter((l) => l.group === group && l.topic === topic);
        await waitFor(() => seen.get(fast) === 20 || undefined, { timeoutMs, what: 'the fast group drained' });
        await waitFor(() => lagOf(fast).length === 2 || undefined, { timeoutMs, what: 'the fast group’s lag on both partitions' });
        expect(lagOf(fast)).toEqual([
          { group: fast, topic, partition: 0, messages: 0, seconds: 0 },
          { group: fast, topic, partition: 1, messages: 0, seconds: 0 },
        ]);
        expect(lagOf(slow)).toEqual([]);
        release();
        await waitFor(() => seen.get(slow) === 20 || undefined, { timeoutMs, what: 'the slow group drained' });
        await waitFor(() => lagOf(slow).length === 2 || undefined, { timeoutMs, what: 'the slow group’s lag on both partitions' });
        expect(lagOf(slow).map((l) => [l.partition, l.messages, l.seconds])).toEqual([
          [0, 0, 0],
          [1, 0, 0],
        ]);
        await producer.close();
      },
      timeoutMs * 2,
    );

    it(
      'resumes a group from its committed offsets',
      async () => {
        const topic = await freshTopic(1);
        const groupId = uniqueName('g');
        const producer = await sut.bus.producer();
        await producer.send(
          topic,
          ['a', 'b', 'c'].map((v) => ({ value: Buffer.from(v) })),
        );
        const first = collect(groupId, [topic]);
        const s1 = await first.sub;
        await waitFor(() => first.seen.length >= 3, { timeoutMs, what: 'first three' });
        await s1.stop();
        subs.splice(subs.indexOf(s1), 1);
        await producer.send(
          topic,
          ['d', 'e'].map((v) => ({ value: Buffer.from(v) })),
        );
        const second = collect(groupId, [topic]);
        await second.sub;
        await waitFor(() => second.seen.length >= 2, { timeoutMs, what: 'the two new' });
        expect(second.seen.map((m) => m.value.toString())).toEqual(['d', 'e']);
        expect(second.seen.map((m) => m.offset)).toEqual(['3', '4']);
        await producer.close();
      },
      timeoutMs * 3,
    );

    it(
      'gives every group every message',
      async () => {
        const topic = await freshTopic();
        const producer = await sut.bus.producer();
        await producer.send(
          topic,
          Array.from({ length: 9 }, (_, i) => ({ key: `k${i}`, value: Buffer.from(String(i)) })),
        );
        const a = collect(uniqueName('ga'), [topic]);
        const b = collect(uniqueName('gb'), [topic]);
        await Promise.all([a.sub, b.sub]);
        await waitFor(() => a.seen.length >= 9 && b.seen.length >= 9, { timeoutMs, what: 'both groups' });
        const values = (s: BusMessage[]) => s.map((m) => m.value.toString()).sort();
        expect(values(a.seen)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8']);
        expect(values(b.seen)).toEqual(values(a.seen));
        await producer.close();
      },
      timeoutMs * 2,
    );

    it(
      'writes several topics in one sendBatch',
      async () => {
        const [t1, t2] = [await freshTopic(1), await freshTopic(1)];
        const producer = await sut.bus.producer();
        await producer.sendBatch([
          { topic: t1, messages: [{ value: Buffer.from('x') }] },
          { topic: t2, messages: [{ value: Buffer.from('y') }, { value: Buffer.from('z') }] },
        ]);
        const c = collect(uniqueName('g'), [t1, t2]);
        await c.sub;
        await waitFor(() => c.seen.length >= 3, { timeoutMs, what: 'three messages' });
        expect(c.seen.filter((m) => m.topic === t1).map((m) => m.value.toString())).toEqual(['x']);
        expect(c.seen.filter((m) => m.topic === t2).map((m) => m.value.toString())).toEqual(['y', 'z']);
        await producer.close();
      },
      timeoutMs * 2,
    );

    it(
      'handles several partitions at once with concurrency, keeping order within each',
      async () => {
        const topic = await freshTopic(3);
        const producer = await sut.bus.producer();
        const keys = ['a', 'b', 'c', 'd', 'e', 'f'];
        await producer.send(
          topic,
          keys.flatMap((k) => [0, 1, 2].map((n) => ({ key: k, value: Buffer.from(`${k}${n}`) }))),
        );
        let inFlight = 0;
        let maxInFlight = 0;
        const seen: string[] = [];
        const sub = await sut.bus.subscribe({
          groupId: uniqueName('g'),
          topics: [topic],
          concurrency: 3,
          handleBatch: async (batch) => {
            inFlight++;
            maxInFlight = Math.max(maxInFlight, inFlight);
            // Hold each batch long enough for the others to be handed over at the same time.
            await new Promise((r) => setTimeout(r, 300));
            seen.push(...batch.messages.map((m) => m.value.toString()));
            inFlight--;
          },
        });
        subs.push(sub);
        await waitFor(() => seen.length >= 18, { timeoutMs, what: '18 messages' });
        expect(maxInFlight).toBeGreaterThan(1);
        for (const k of keys) expect(seen.filter((v) => v.startsWith(k))).toEqual([`${k}0`, `${k}1`, `${k}2`]);
        await producer.close();
      },
      timeoutMs * 2,
    );

    it(
      'splits a sendBatch larger than a record batch and keeps its order',
      async () => {
        const topic = await freshTopic(1);
        const limit = sut.bus.maxBatchBytes(topic);
        expect(limit).toBe(1_048_588);
        const producer = await sut.bus.producer();
        // 40 × 64 KiB on one key: 2.5 × the limit for one partition in one call.
        const messages = Array.from({ length: 40 }, (_, i) => ({ key: 'one-key', value: Buffer.alloc(64 * 1024, i), headers: { n: String(i) } }));
        await producer.sendBatch([{ topic, messages }]);
        const c = collect(uniqueName('g'), [topic]);
        await c.sub;
        await waitFor(() => c.seen.length >= 40, { timeoutMs, what: '40 large messages' });
        expect(c.seen.map((m) => m.headers.n)).toEqual(messages.map((m) => m.headers.n));
        expect(c.seen.map((m) => m.value[0])).toEqual(messages.map((_, i) => i));
        expect(c.seen.every((m) => m.value.length === 64 * 1024)).toBe(true);
        await producer.close();
      },
      timeoutMs * 2,
    );

    it('refuses one message larger than a record batch with a non-retriable InfraError', async () => {
      const topic = await freshTopic(1);
      const producer = await sut.bus.producer();
      const err = await producer.send(topic, [{ key: 'k', value: Buffer.alloc(sut.bus.maxBatchBytes(topic)) }]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InfraError);
      expect((err as InfraError).retriable).toBe(false);
      await producer.close();
    });

    it(
      'dead-letters a message no retry can handle, with provenance, and goes on',
      async () => {
        await sut.bus.ensureTopics([{ name: topics.deadLetters, partitions: 3 }]);
        const topic = await freshTopic(1);
        const groupId = uniqueName('g');
        const producer = await sut.bus.producer();
        await producer.send(
          topic,
          ['a', 'b', 'poison', 'c', 'd'].map((v) => ({ key: 'k', value: Buffer.from(v), headers: { origin: v } })),
        );
        const handled: string[] = [];
        const sub = await sut.bus.subscribe({
          groupId,
          topics: [topic],
          processor: { name: 'conformance-consumer', version: '9.9.9' },
          handleBatch: async (batch) => {
            // A bug: thrown for the whole batch while it holds the poison message.
            if (batch.messages.some((m) => m.value.toString() === 'poison')) throw new TypeError('cannot handle poison (test)');
            handled.push(...batch.messages.map((m) => m.value.toString()));
          },
        });
        subs.push(sub);
        const letters: BusMessage[] = [];
        const dlq = await sut.bus.subscribe({
          groupId: uniqueName('dlq'),
          topics: [topics.deadLetters],
          handleBatch: async (batch) => {
            letters.push(...batch.messages.filter((m) => m.headers[H.group] === groupId));
          },
        });
        subs.push(dlq);
        await waitFor(() => letters.length >= 1 && new Set(handled).size >= 4, { timeoutMs, what: 'the dead letter and the other four' });
        expect([...new Set(handled)].sort()).toEqual(['a', 'b', 'c', 'd']);
        expect(letters).toHaveLength(1);
        const letter = letters[0] as BusMessage;
        expect(letter.key).toBe('k');
        expect(letter.value.toString()).toBe('poison');
        expect(letter.headers).toEqual({
          origin: 'poison',
          [H.id]: deadLetterId(groupId, { topic, partition: 0, offset: '2', key: 'k', value: Buffer.from('poison') }),
          [H.sourceTopic]: topic,
          [H.sourcePartition]: '0',
          [H.sourceOffset]: '2',
          [H.sourceHasKey]: '1',
          [H.group]: groupId,
          [H.errorKind]: 'failed',
          [H.errorMessage]: 'cannot handle poison (test)',
          [H.errorRetriable]: 'false',
          [H.processor]: 'conformance-consumer',
          [H.processorVersion]: '9.9.9',
          [H.failedAt]: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        });
        expect(sut.bus.deadLetterCounts()).toContainEqual({ sourceTopic: topic, group: groupId, count: 1 });
        // The partition moved on: a later message is handled.
        await producer.send(topic, [{ key: 'k', value: Buffer.from('e') }]);
        await waitFor(() => handled.includes('e'), { timeoutMs, what: 'a message after the poison one' });
        expect(sub.health()).toEqual({ state: 'running' });
        await producer.close();
      },
      timeoutMs * 3,
    );

    it(
      'dead-letters a message the handler cannot read with its kind, and counts it once the write is durable',
      async () => {
        await sut.bus.ensureTopics([{ name: topics.deadLetters, partitions: 3 }]);
        const topic = await freshTopic(1);
        const groupId = uniqueName('g');
        const producer = await sut.bus.producer();
        await producer.send(topic, [{ value: Buffer.from('{') }, { value: Buffer.from('{}') }]);
        const handled: string[] = [];
        const sub = await sut.bus.subscribe({
          groupId,
          topics: [topic],
          handleBatch: async (batch) => {
            for (const m of batch.messages) {
              if (m.value.toString() === '{') throw new UnreadableMessageError('unreadable', 'not JSON (test)');
            }
            handled.push(...batch.messages.map((m) => m.value.toString()));
          },
        });
        subs.push(sub);
        const letters: BusMessage[] = [];
        const dlq = await sut.bus.subscribe({
          groupId: uniqueName('dlq'),
          topics: [topics.deadLetters],
          handleBatch: async (batch) => {
            letters.push(...batch.messages.filter((m) => m.headers[H.group] === groupId));
          },
        });
        subs.push(dlq);
        await waitFor(() => letters.length >= 1 && handled.includes('{}'), { timeoutMs, what: 'the dead letter and the readable message' });
        const letter = letters[0] as BusMessage;
        expect([letter.key, letter.headers[H.sourceHasKey], letter.headers[H.errorKind], letter.headers[H.errorMessage], letter.headers[H.processor]]).toEqual([
          null,
          '0',
          'unreadable',
          'not JSON (test)',
          groupId,
        ]);
        expect(sut.bus.deadLetterCounts()).toContainEqual({ sourceTopic: topic, group: groupId, count: 1 });
        await producer.close();
      },
      timeoutMs * 3,
    );

    it(
      'reports a stopped subscription as stopped, not dead',
      async () => {
        const topic = await freshTopic(1);
        const sub = await sut.bus.subscribe({ groupId: uniqueName('g'), topics: [topic], handleBatch: async () => undefined });
        expect(sub.health()).toEqual({ state: 'running' });
        await sub.stop();
        expect(sub.health()).toEqual({ state: 'stopped' });
      },
      timeoutMs,
    );

    it(
      'scans a topic back from a log time to its end as of the call, in offset order per partition',
      async () => {
        const topic = await freshTopic(2);
        const producer = await sut.bus.producer();
        const send = (values: string[]) =>
          producer.send(
            topic,
            values.map((v) => ({ key: v, value: Buffer.from(v), headers: { v } })),
          );
        await send(['b1', 'b2', 'b3', 'b4']);
        // A time after every earlier message's and before every later one's (log times are ms).
        const from = Date.now() + 1;
        await waitFor(() => Date.now() > from, { timeoutMs, intervalMs: 1, what: 'the clock to pass the scan time' });
        const later = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'];
        await send(later);
        const visited: BusMessage[] = [];
        await sut.bus.scan(topic, from, async (m) => {
          // Written during the scan: past the end the scan took at its call, so not visited.
          if (visited.length === 0) await send(['during']);
          visited.push(m);
        });
        expect(visited.map((m) => m.value.toString()).sort()).toEqual(later);
        for (const m of visited) expect([m.topic, m.key, m.headers]).toEqual([topic, m.value.toString(), { v: m.value.toString() }]);
        for (const p of [0, 1]) {
          const offsets = visited.filter((m) => m.partition === p).map((m) => Number(m.offset));
          expect(offsets).toEqual([...offsets].sort((x, y) => x - y));
        }
        const all: string[] = [];
        await sut.bus.scan(topic, 0, (m) => void all.push(m.value.toString()));
        expect(all.sort()).toEqual(['during', ...later, 'b1', 'b2', 'b3', 'b4'].sort());
        const none: BusMessage[] = [];
        await sut.bus.scan(topic, Date.now() + 60_000, (m) => void none.push(m));
        expect(none).toEqual([]);
        // A visitor's failure is the scan's, unchanged.
        const failure = new RangeError('visitor failed (test)');
        await expect(
          sut.bus.scan(topic, 0, () => {
            throw failure;
          }),
        ).rejects.toBe(failure);
        await producer.close();
      },
      timeoutMs * 3,
    );

    it(
      'follows a compacted topic without a group: every follower reads it whole, tombstones remove a key, later messages arrive',
      async () => {
        const topic = uniqueName('conf-compacted');
        await sut.bus.ensureTopics([{ name: topic, partitions: 2, compacted: true }]);
        const producer = await sut.bus.producer();
        await producer.send(topic, [
          { key: 'k1', value: Buffer.from('a') },
          { key: 'k2', value: Buffer.from('b') },
          { key: 'k1', value: Buffer.from('c') },
          { key: 'k2', value: null },
        ]);
        // What a follower holds: the latest value of each key (Kafka may deliver older ones first,
        // before compaction runs; the in-process bus keeps only the latest).
        const follower = async () => {
          const held = new Map<string, string>();
          const following = await sut.bus.follow(topic, (key, value) => {
            if (value === null) held.delete(key);
            else held.set(key, value.toString());
          });
          return { held, following };
        };
        const first = await follower();
        await first.following.caughtUp;
        expect([...first.held]).toEqual([['k1', 'c']]);
        await producer.send(topic, [{ key: 'k3', value: Buffer.from('d') }]);
        await waitFor(() => first.held.has('k3') || undefined, { timeoutMs, what: 'the message sent while following' });
        const second = await follower();
        await second.following.caughtUp;
        expect([...second.held].sort()).toEqual([
          ['k1', 'c'],
          ['k3', 'd'],
        ]);
        await producer.send(topic, [{ key: 'k1', value: null }]);
        await waitFor(() => (!first.held.has('k1') && !second.held.has('k1')) || undefined, { timeoutMs, what: 'the tombstone at both' });
        expect([[...first.held], [...second.held]]).toEqual([[['k3', 'd']], [['k3', 'd']]]);
        await Promise.all([first.following.stop(), second.following.stop(), producer.close()]);
        // An empty compacted topic is caught up at once.
        const empty = uniqueName('conf-compacted-empty');
        await sut.bus.ensureTopics([{ name: empty, partitions: 1, compacted: true }]);
        const none = await sut.bus.follow(empty, () => undefined);
        await none.caughtUp;
        await none.stop();
      },
      timeoutMs * 3,
    );

    it('lists ensured topics and ensures idempotently', async () => {
      const topic = await freshTopic(2);
      await sut.bus.ensureTopics([{ name: topic, partitions: 2 }]);
      expect(await sut.bus.listTopics()).toContain(topic);
    });
  });
}
