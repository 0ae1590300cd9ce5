import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { InfraError, type BusMessage, type PrivacyTable } from '@evp/core';
import type { NormalizeOptions } from '@evp/schemas';
import { unpackBatch } from './event-columns';
import { RawBatchProcessor, packValues, type EncodedBatch, type FramedEvent } from './raw-batch-processor';
import type { OutputSchema } from './output-schemas';
import type { MessageOutcome } from './process-raw';

/** `privacy` travels only when it changed since the worker's last request (a keys file reload). */
export type EncodeRequest = { seq: number; privacy?: PrivacyTable } & ReturnType<typeof packValues>;
export type EncodeReply = { seq: number; batch: EncodedBatch } | { seq: number; error: string };

/** A raw message's outcome, its events framed and ready to produce. */
export type EncodedMessage = MessageOutcome<FramedEvent<Buffer>>;

export interface EncodePoolOptions {
  /** Worker threads; 0 runs the work inline on the calling thread. */
  workers: number;
  schemas: readonly OutputSchema[];
  normalize: NormalizeOptions;
  /** The worker's entry script; by default encode.worker beside this file. Tests substitute one. */
  workerFile?: string;
}

/** Raw messages → outcomes with encoded events, in the order given, on worker threads or inline. */
export interface EncodePool {
  readonly workers: number;
  /** `privacy`: every app's policy now (the keys file's; reloads change it between batches). */
  encode(messages: readonly BusMessage[], privacy: PrivacyTable): Promise<EncodedMessage[]>;
  close(): Promise<void>;
}

const ENCODE_WORKER_DEPENDENCY = 'encode-worker';

/**
 * Normalising, validating and encoding is the validator's whole CPU cost (the Kafka I/O around it is
 * cheap), and one thread of it runs at about a third of what one gateway feeds; worker threads let
 * one validator process use every core it is given. A batch is cut into contiguous slices of about
 * equal bytes, one per worker, and the outcomes come back in message order, so output order and
 * offset commits are exactly those of the inline path.
 */
export function createEncodePool(opts: EncodePoolOptions): EncodePool {
  if (opts.workers <= 0) {
    const encoder = new RawBatchProcessor(opts.schemas, opts.normalize);
    return {
      workers: 0,
      async encode(messages, privacy) {
        return materialize(encoder.encode(messages, privacy));
      },
      async close() {},
    };
  }
  const workers = Array.from({ length: opts.workers }, () => new PoolWorker(opts));
  let next = 0;
  return {
    workers: workers.length,
    async encode(messages, privacy) {
      const slices = sliceByBytes(messages, workers.length);
      const start = next;
      next = (next + slices.length) % workers.length;
      const batches = await Promise.all(slices.map((slice, i) => (workers[(start + i) % workers.length] as PoolWorker).run(slice, privacy)));
      return batches.flatMap(materialize);
    },
    async close() {
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}

/** Events get their bytes as views of the batch's buffer (no copy). */
function materialize(batch: EncodedBatch): EncodedMessage[] {
  const bytes = batch.bytes;
  return unpackBatch(batch, (start, end) => Buffer.from(bytes, start, end - start));
}

/** Contiguous slices of roughly equal byte size, at most `n`, none empty. */
export function sliceByBytes<T extends { value: Buffer }>(messages: readonly T[], n: number): T[][] {
  if (messages.length === 0) return [];
  let total = 0;
  for (const m of messages) total += m.value.length;
  const target = total / Math.min(n, messages.length);
  const slices: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const m of messages) {
    current.push(m);
    bytes += m.value.length;
    if (bytes >= target * (slices.length + 1) && slices.length < n - 1) {
      slices.push(current);
      current = [];
    }
  }
  if (current.length > 0) slices.push(current);
  return slices;
}

/**
 * The worker runs TypeScript sources in development and tests (through tsx, whose hooks a worker
 * does not inherit) and the bundled `encode.worker.js` beside `main.js` in an image.
 */
function spawn(opts: EncodePoolOptions): Worker {
  const workerData = { schemas: opts.schemas, normalize: opts.normalize };
  if (opts.workerFile !== undefined) return new Worker(opts.workerFile, { workerData });
  const ext = extname(__filename);
  const file = join(__dirname, `encode.worker${ext}`);
  if (ext !== '.ts') return new Worker(file, { workerData });
  const source = `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(file)});`;
  return new Worker(source, { eval: true, workerData });
}

class PoolWorker {
  /** Started on first use and again after one died: a worker that cannot start fails batches, never spins. */
  private worker: Worker | undefined;
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (b: EncodedBatch) => void; reject: (e: Error) => void }>();
  private closing = false;
  /** The policy table the running worker holds (by identity: the key ring makes a new one per reload). */
  private sentPrivacy: PrivacyTable | undefined;

  constructor(private readonly opts: EncodePoolOptions) {
    this.worker = this.start();
  }

  run(messages: readonly BusMessage[], privacy: PrivacyTable): Promise<EncodedBatch> {
    const worker = this.worker ?? (this.worker = this.start());
    const seq = ++this.seq;
    const request: EncodeRequest = { seq, ...packValues(messages) };
    if (privacy !== this.sentPrivacy) {
      request.privacy = privacy;
      this.sentPrivacy = privacy;
    }
    return new Promise((resolve, reject) => {
      this.pending.set(seq, { resolve, reject });
      worker.postMessage(request, [request.bytes]);
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.worker?.terminate();
  }

  private start(): Worker {
    const worker = spawn(this.opts);
    // A fresh worker holds no policy yet: the next request carries it.
    this.sentPrivacy = undefined;
    worker.on('message', (reply: EncodeReply) => {
      const p = this.pending.get(reply.seq);
      if (p === undefined) return;
      this.pending.delete(reply.seq);
      // A throw inside the encoder is a defect (a canonical event its own schema refuses): the
      // batch fails as it would inline, and retrying it cannot help.
      if ('error' in reply) p.reject(new InfraError(ENCODE_WORKER_DEPENDENCY, `encoding failed: ${reply.error}`, { retriable: false }));
      else p.resolve(reply.batch);
    });
    let failure: Error | undefined;
    worker.on('error', (err) => {
      failure = err;
    });
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      if (this.closing) return;
      // Whatever it held fails as retriable: the bus redelivers the batch to a fresh worker.
      const cause = failure ?? new Error(`exited with code ${code}`);
      for (const p of this.pending.values()) p.reject(new InfraError(ENCODE_WORKER_DEPENDENCY, `worker died: ${cause.message}`, { retriable: true, cause }));
      this.pending.clear();
    });
    return worker;
  }
}
