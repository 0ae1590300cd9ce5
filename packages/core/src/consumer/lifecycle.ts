import { deadLetterOf, processorOf, type DeadLetterError, type Processor } from '../dead-letter';
import { InfraError, errorMessage } from '../errors';
import type { Logger } from '../logger';
import type { Bus, BusMessage, BusProducer, MessageBatch, OutgoingMessage, Subscription, SubscriptionHealth } from '../ports/bus';
import { topics } from '../topics';
import { timerClock, type TimerClock } from './clock';
import { every, type Every } from './every';

export interface ConsumerLifecycleOptions {
  /** The part's name: its log lines' `component` and its dead letters' processor. */
  name: string;
  bus: Bus;
  logger: Logger;
  /** The clock of its timers. Default: the process's timers on Date.now. */
  clock?: TimerClock;
  /** Called once if one of its consumers stops for good (Subscription). */
  onDead?: (error: Error) => void;
}

/** One consumer group of the part: what the bus's subscribe takes, less what the lifecycle owns. */
export interface ConsumeOptions {
  groupId: string;
  topics: string[];
  handleBatch: (batch: MessageBatch) => Promise<void>;
  fromBeginning?: boolean;
  concurrency?: number;
}

/** What a part does on stop besides what the lifecycle owns, in this order. */
export interface StopSteps {
  /** While its consumers stop (e.g. insert what is buffered, so the batch in hand can commit). */
  drain?: () => Promise<unknown>;
  /** Once its consumers have stopped, before its producer closes (e.g. write what is held back). */
  flush?: () => Promise<unknown>;
  /** Once its producer has closed (e.g. worker threads, another producer). */
  close?: () => Promise<unknown>;
}

/**
 * The lifecycle every consuming part shares (the sink, the segment engine, the campaign worker, the
 * validator): a producer opened on start, consumer groups that name the part in their dead
 * letters, timers on the part's clock, one health, and a stop that undoes it all in order.
 */
export interface ConsumerLifecycle {
  readonly name: string;
  /** The caller's logger with `component: name`. */
  readonly logger: Logger;
  readonly processor: Processor;
  readonly clock: TimerClock;
  /** Opens the producer; false if it is open already (a second start does nothing). */
  open(): Promise<boolean>;
  /** The open producer; a retriable InfraError before open or after stop (the batch in hand is delivered again). */
  producer(): BusProducer;
  /** Joins a consumer group; its dead letters name this part, its death calls `onDead`. */
  consume(options: ConsumeOptions): Promise<void>;
  /** Runs `run` every `everyMs` on the part's clock until stop (every.ts); none when 0. */
  every(everyMs: number, what: string, run: () => Promise<void>): void;
  /** A dead letter of `msg` written by this part for `group` (deadLetterOf). */
  deadLetter(msg: BusMessage, group: string, error: DeadLetterError): OutgoingMessage;
  /** Writes dead letters durably; a failure is a retriable InfraError, so nothing is committed past them. */
  writeDeadLetters(messages: OutgoingMessage[]): Promise<void>;
  /** The worst state of its consumers (dead, then stopped); `stopped` when it has none. */
  health(): SubscriptionHealth;
  /** Timers (a run in progress ends), then the consumers (with `drain`), `flush`, the producer, `close`. */
  stop(steps?: StopSteps): Promise<void>;
}

export function createConsumerLifecycle(opts: ConsumerLifecycleOptions): ConsumerLifecycle {
  const { name, bus } = opts;
  const logger = opts.logger.child({ component: name });
  const processor = processorOf(name);
  const clock = opts.clock ?? timerClock();
  let producer: BusProducer | undefined;
  const subscriptions: Subscription[] = [];
  const timers: Every[] = [];

  const openProducer = (): BusProducer => {
    if (!producer) throw new InfraError('bus', `${name} not started: no producer`, { retriable: true });
    return producer;
  };

  return {
    name,
    logger,
    processor,
    clock,
    async open() {
      if (producer) return false;
      producer = await bus.producer();
      return true;
    },
    producer: openProducer,
    async consume(o) {
      subscriptions.push(
        await bus.subscribe({
          groupId: o.groupId,
          topics: o.topics,
          processor,
          handleBatch: o.handleBatch,
          ...(o.fromBeginning === undefined ? {} : { fromBeginning: o.fromBeginning }),
          ...(o.concurrency === undefined ? {} : { concurrency: o.concurrency }),
          ...(opts.onDead ? { onDead: opts.onDead } : {}),
        }),
      );
    },
    every(everyMs, what, run) {
      timers.push(every({ everyMs, what, run, clock, logger }));
    },
    deadLetter: (msg, group, error) => deadLetterOf(msg, { group, error, processor, failedAt: clock.now() }),
    async writeDeadLetters(messages) {
      if (messages.length === 0) return;
      await openProducer()
        .send(topics.deadLetters, messages)
        .catch((err: unknown) => {
          throw new InfraError('bus', `dead-letter write failed, not committing: ${errorMessage(err)}`, { retriable: true, cause: err });
        });
    },
    health() {
      const states = subscriptions.map((s) => s.health());
      return (
        states.find((h) => h.state === 'dead') ?? states.find((h) => h.state === 'stopped') ?? (states.length > 0 ? { state: 'running' } : { state: 'stopped' })
      );
    },
    async stop(steps = {}) {
      await Promise.all(timers.splice(0).map((t) => t.stop()));
      await Promise.all([steps.drain?.(), ...subscriptions.splice(0).map((s) => s.stop())]);
      await steps.flush?.();
      const p = producer;
      producer = undefined;
      await p?.close();
      await steps.close?.();
    },
  };
}
