import { deadLetterErrorOf, deadLetterOf, processorOf, type Processor } from './dead-letter';
import { InfraError, errorMessage } from './errors';
import type { Logger } from './logger';
import type { ConsumerLagTally } from './consumer-lag';
import type { BusMessage, MessageBatch, OutgoingMessage, SubscribeOptions, SubscriptionHealth } from './ports/bus';

export interface ConsumerGuardOptions {
  groupId: string;
  /** Who consumes: named in every dead letter. Default: the group id, at the platform's version. */
  processor?: Processor;
  handleBatch: (batch: MessageBatch) => Promise<void>;
  /** Writes dead letters durably to topics.deadLetters; resolves only once they are. */
  writeDeadLetters: (messages: OutgoingMessage[]) => Promise<void>;
  logger?: Logger;
  now?: () => number;
}

/**
 * Wraps a batch handler so no message can hold a partition. A retriable InfraError is rethrown (the
 * bus redelivers the batch after a back-off). Any other failure — a non-retriable InfraError or a
 * bug — is one no retry can cure: the batch is bisected, the handler re-run on each half in order,
 * down to the single messages that still fail; each of those is written to the dead-letter topic
 * in the one envelope (dead-letter.ts: a handler throws UnreadableMessageError for a message it
 * cannot read, which names the kind), and only then does the wrapper resolve, so the bus commits past it. A failed
 * dead-letter write is thrown as retriable: the offset is never committed over a message that was
 * neither handled nor kept. Handlers already run at-least-once, so re-running halves is safe.
 */
export function guardBatchHandler(opts: ConsumerGuardOptions): (batch: MessageBatch) => Promise<void> {
  const now = opts.now ?? Date.now;
  const processor = opts.processor ?? processorOf(opts.groupId);
  const run = async (batch: MessageBatch, messages: BusMessage[]): Promise<void> => {
    try {
      await opts.handleBatch(messages === batch.messages ? batch : { ...batch, messages });
      return;
    } catch (err) {
      if (err instanceof InfraError && err.retriable) throw err;
      if (messages.length > 1) {
        const mid = Math.ceil(messages.length / 2);
        await run(batch, messages.slice(0, mid));
        await run(batch, messages.slice(mid));
        return;
      }
      const msg = messages[0] as BusMessage;
      opts.logger?.error(
        { err, topic: msg.topic, partition: msg.partition, offset: msg.offset, group: opts.groupId },
        `dead-lettering a message no retry can handle: ${errorMessage(err)}`,
      );
      try {
        await opts.writeDeadLetters([deadLetterOf(msg, { group: opts.groupId, error: deadLetterErrorOf(err), processor, failedAt: now() })]);
      } catch (writeErr) {
        throw new InfraError('bus', `dead-letter write failed, not committing: ${errorMessage(writeErr)}`, { retriable: true, cause: writeErr });
      }
    }
  };
  return (batch) => run(batch, batch.messages);
}

/**
 * A subscription's handler as both adapters run it: guarded (above), and the group's lag recorded
 * after each batch it handled (consumer-lag.ts).
 */
export function subscriptionHandler(
  opts: Pick<SubscribeOptions, 'groupId' | 'handleBatch' | 'processor'>,
  deps: { lag: ConsumerLagTally; writeDeadLetters: ConsumerGuardOptions['writeDeadLetters']; logger?: Logger | undefined },
): (batch: MessageBatch) => Promise<void> {
  return deps.lag.measured(
    opts.groupId,
    guardBatchHandler({
      groupId: opts.groupId,
      handleBatch: opts.handleBatch,
      writeDeadLetters: deps.writeDeadLetters,
      ...(deps.logger ? { logger: deps.logger } : {}),
      ...(opts.processor ? { processor: opts.processor } : {}),
    }),
  );
}

/** A subscription's state as both adapters report it; `onDead` is called once, on the first death. */
export function subscriptionHealth(onDead?: (error: Error) => void) {
  let state: SubscriptionHealth = { state: 'running' };
  return {
    health: (): SubscriptionHealth => state,
    stopped() {
      if (state.state === 'running') state = { state: 'stopped' };
    },
    dead(error: Error) {
      if (state.state === 'dead') return;
      state = { state: 'dead', error: error.message };
      onDead?.(error);
    },
  };
}

/** Readiness problems of named subscriptions: a dead consumer makes its service not ready. */
export function consumerProblems(subs: Record<string, { health(): SubscriptionHealth }>): string[] {
  const problems: string[] = [];
  for (const [name, sub] of Object.entries(subs)) {
    const h = sub.health();
    if (h.state === 'dead') problems.push(`consumer ${name} is dead: ${h.error}`);
    else if (h.state === 'stopped') problems.push(`consumer ${name} is stopped`);
  }
  return problems;
}
