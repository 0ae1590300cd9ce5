import { InfraError, type BusProducer, type OutgoingRecord } from '@evp/core';

export interface CoalescingOptions {
  /** Produce requests in flight at once; while all are busy, new sends gather into the next one. */
  maxInFlight?: number;
  /** Upper bound of one combined produce, in value bytes (the broker caps a record batch at ~1 MB). */
  maxBatchBytes?: number;
  /** A send still queued after this long fails (retriable) instead of waiting on a stuck broker. */
  queueTimeoutMs?: number;
  now?: () => number;
}

interface Pending {
  topic: string;
  messages: OutgoingRecord[];
  bytes: number;
  since: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Many concurrent HTTP requests → few Kafka produce requests. kafkajs sends one produce request per
 * `send`, and an idempotent producer allows only 5 in flight, so per-request sends cap throughput at
 * 5 / ack-latency. Here, while `maxInFlight` combined sends are being acknowledged, new sends queue
 * and leave together as one `sendBatch` (like Nagle or linger.ms, but adaptive: no wait when idle).
 * Each caller still resolves only after Kafka acknowledged its own messages; a failed combined send
 * fails its callers (503), except a permanent error, after which each caller is retried alone so one
 * bad request (e.g. too large) never fails its neighbours.
 */
export function coalescingProducer(inner: BusProducer, opts: CoalescingOptions = {}): BusProducer {
  const maxInFlight = opts.maxInFlight ?? 4;
  const maxBatchBytes = opts.maxBatchBytes ?? 900_000;
  const queueTimeoutMs = opts.queueTimeoutMs ?? 5_000;
  const now = opts.now ?? Date.now;
  const queue: Pending[] = [];
  let inFlight = 0;
  let scheduled = false;
  let closed = false;

  const groupByTopic = (items: Pending[]) => {
    const byTopic = new Map<string, OutgoingRecord[]>();
    for (const p of items) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), ...p.messages]);
    return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
  };

  async function produce(items: Pending[]) {
    try {
      await inner.sendBatch(groupByTopic(items));
      for (const p of items) p.resolve();
    } catch (err) {
      const permanent = err instanceof InfraError && !err.retriable;
      if (permanent && items.length > 1) {
        await Promise.all(items.map((p) => inner.sendBatch(groupByTopic([p])).then(p.resolve, p.reject)));
      } else {
        for (const p of items) p.reject(err);
      }
    }
  }

  function take(): Pending[] {
    const batch: Pending[] = [];
    let bytes = 0;
    while (queue.length > 0) {
      const next = queue[0] as Pending;
      if (now() - next.since > queueTimeoutMs) {
        queue.shift();
        next.reject(new InfraError('kafka', `produce queued longer than ${queueTimeoutMs} ms`, { retriable: true }));
        continue;
      }
      if (batch.length > 0 && bytes + next.bytes > maxBatchBytes) break;
      batch.push(queue.shift() as Pending);
      bytes += next.bytes;
    }
    return batch;
  }

  function pump() {
    scheduled = false;
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = take();
      if (batch.length === 0) break;
      inFlight += 1;
      // Fire and forget: produce never rejects (it settles each caller's own promise), and the
      // pump must not wait for one combined send before starting the next.
      void produce(batch).finally(() => {
        inFlight -= 1;
        schedule();
      });
    }
  }

  // setImmediate: sends from the same turn of the event loop (and I/O callbacks before it) go together.
  function schedule() {
    if (!scheduled && queue.length > 0 && inFlight < maxInFlight) {
      scheduled = true;
      setImmediate(pump);
    }
  }

  const enqueue = (topic: string, messages: OutgoingRecord[]) =>
    new Promise<void>((resolve, reject) => {
      if (closed) return reject(new InfraError('kafka', 'producer is closed', { retriable: true }));
      if (messages.length === 0) return resolve();
      const bytes = messages.reduce((n, m) => n + (m.value?.length ?? 0) + (m.key?.length ?? 0), 0);
      queue.push({ topic, messages, bytes, since: now(), resolve, reject });
      schedule();
    });

  return {
    send: enqueue,
    async sendBatch(entries) {
      await Promise.all(entries.map((e) => enqueue(e.topic, e.messages)));
    },
    async close() {
      // Flush: everything queued or in flight is produced (or fails) before the inner producer closes.
      closed = true;
      while (queue.length > 0 || inFlight > 0) {
        schedule();
        await new Promise((r) => setTimeout(r, 5));
      }
      await inner.close();
    },
  };
}
