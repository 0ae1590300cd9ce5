import { InfraError } from '@evp/core';
import { PERMANENT_PROTOCOL } from './kafka-errors';

/** The Kafka protocol error type (e.g. OUT_OF_ORDER_SEQUENCE_NUMBER) of a kafkajs error or of one it wraps. */
function protocolType(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; e instanceof Error && depth < 5; depth += 1) {
    const type = (e as { type?: unknown }).type;
    if (typeof type === 'string') return type;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Whether an idempotent kafkajs producer may send again after a send failed with `err`.
 *
 * kafkajs numbers each partition's record batches and, when a produce request fails (a timeout, a
 * dropped connection, a partition's error in a response that covered several), rewinds the numbers
 * of every partition in it, although the broker may have appended some of those batches. The next
 * batch then reuses a number: the broker refuses it with OUT_OF_ORDER_SEQUENCE_NUMBER (and every
 * later one: the producer never recovers), or, when it has as many records as the appended batch,
 * takes it for a retry of that batch and acknowledges it without writing it — an acknowledged
 * event lost. A send abandoned at our timeout leaves the same doubt. Only a request the broker
 * refused as a whole before appending anything (too large, invalid, not authorised) leaves the
 * numbers right; after anything else the producer is replaced (a new producer id starts new numbers).
 */
export function producerSurvives(err: unknown): boolean {
  const type = protocolType(err);
  return type !== undefined && PERMANENT_PROTOCOL.has(type);
}

export interface SerialProducerOptions<P> {
  /** A connected producer (for Kafka: a new producer id). */
  open: () => Promise<P>;
  close: (p: P) => Promise<void>;
  /** Longest a send may wait for its turn and run (all attempts) before it fails (retriable); the producer it ran on is replaced. */
  timeoutMs: number;
  survives?: (err: unknown) => boolean;
  onReplace?: (err: unknown) => void;
  /**
   * A send that failed with an error `when` accepts (default: any after which the producer was
   * replaced) is run again, whole, on the new producer up to `retries` times, `initialMs` doubling
   * up to `maxMs` between attempts, while the deadline allows. Default: no retry.
   */
  retry?: { retries: number; initialMs: number; maxMs: number; when?: (err: unknown) => boolean };
}

export interface SerialProducer<P> {
  /** Runs `work` on the current producer, one at a time; resolves only if `work` did. */
  run<T>(work: (p: P) => Promise<T>): Promise<T>;
  /** How many producers were opened so far (1 + replacements). */
  opened(): number;
  close(): Promise<void>;
}

/**
 * One send at a time on one producer, which is replaced after a failed or abandoned send (see
 * `producerSurvives`) and, with `retry`, the send run again whole on the new one: every message of
 * it is written at least once when it resolves (a retry may write some twice). One at a time because kafkajs hands a partition's rewound number to whichever
 * send takes the broker next: with sends overlapping, another caller's batch could reuse the number
 * before the failure reached us. (kafkajs already sends an idempotent producer's requests to one
 * broker one after the other, and callers such as the gateway combine concurrent sends, so little
 * concurrency is lost.) A failed send is never acknowledged: its error reaches the caller.
 */
export function serialProducer<P>(opts: SerialProducerOptions<P>): SerialProducer<P> {
  const survives = opts.survives ?? producerSurvives;
  let current: Promise<P> | undefined;
  let opened = 0;
  let closed = false;
  /** Settles when the previous send released its turn. */
  let turn: Promise<void> = Promise.resolve();

  const retire = (p: Promise<P>, work: Promise<unknown>) => {
    if (current === p) current = undefined;
    // An abandoned send may still be running on it: the producer is closed once that settled.
    void work
      .catch(() => undefined)
      .then(() => p)
      .then(opts.close, () => undefined)
      .catch(() => undefined);
  };

  const timedOut = (what: string) => new InfraError('kafka', `${what} timed out after ${opts.timeoutMs} ms`, { retriable: true });

  const retry = opts.retry ?? { retries: 0, initialMs: 0, maxMs: 0 };

  async function runInTurn<T>(work: (p: P) => Promise<T>, deadline: number): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await attemptInTurn(work, deadline);
      } catch (err) {
        const wait = Math.min(retry.maxMs, retry.initialMs * 2 ** attempt);
        // A request refused whole is refused again; past the deadline the caller has its answer.
        const again = !survives(err) && (retry.when?.(err) ?? true);
        if (!again || attempt >= retry.retries || closed || Date.now() + wait >= deadline) throw err;
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  async function attemptInTurn<T>(work: (p: P) => Promise<T>, deadline: number): Promise<T> {
    if (closed) throw new InfraError('kafka', 'producer is closed', { retriable: true });
    if (Date.now() >= deadline) throw timedOut('waiting to produce');
    if (!current) {
      opened += 1;
      current = opts.open();
    }
    const p = current;
    let started = false;
    const attempt = p.then((producer) => {
      started = true;
      return work(producer);
    });
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(timedOut('produce')), Math.max(0, deadline - Date.now()));
    });
    try {
      return await Promise.race([attempt, expired]);
    } catch (err) {
      // A producer that failed to open, or did not open in time, is not kept either.
      if (!started || !survives(err)) {
        opts.onReplace?.(err);
        retire(p, attempt);
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    run(work) {
      const deadline = Date.now() + opts.timeoutMs;
      const result = turn.then(() => runInTurn(work, deadline));
      turn = result.then(
        () => undefined,
        () => undefined,
      );
      return result;
    },
    opened: () => opened,
    async close() {
      closed = true;
      await turn;
      const p = current;
      current = undefined;
      if (p) await opts.close(await p);
    },
  };
}
