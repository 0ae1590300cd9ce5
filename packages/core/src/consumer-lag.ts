import type { MessageBatch } from './ports/bus';

/** How far one consumer group is behind on one partition, as of the last batch it handled there. */
export interface ConsumerLag {
  group: string;
  topic: string;
  partition: number;
  /** Messages the partition held beyond the last one handled (its high watermark at that batch's fetch). */
  messages: number;
  /**
   * 0 once caught up; otherwise the time from the last handled message's log time to its batch being
   * handled: an upper bound on how long the next message had waited then.
   */
  seconds: number;
}

/**
 * Every consumer group's lag per partition, recorded where every batch passes: both bus adapters
 * wrap each subscription's handler with `measured`, so no consumer has to report its own lag.
 */
export function consumerLagTally(now: () => number = Date.now) {
  const lags = new Map<string, ConsumerLag>();
  return {
    /** The handler, recording the group's lag on the batch's partition after each batch it handled. */
    measured(group: string, handleBatch: (batch: MessageBatch) => Promise<void>) {
      return async (batch: MessageBatch): Promise<void> => {
        await handleBatch(batch);
        const last = batch.messages[batch.messages.length - 1];
        if (!last) return;
        const messages = Math.max(0, Number(batch.highWatermark) - Number(last.offset) - 1);
        const seconds = messages === 0 ? 0 : Math.max(0, now() - last.timestamp) / 1000;
        lags.set(`${group}\u0000${batch.topic}\u0000${batch.partition}`, { group, topic: batch.topic, partition: batch.partition, messages, seconds });
      };
    },
    /** By group, topic and partition. */
    readings: (): ConsumerLag[] =>
      [...lags.values()].map((l) => ({ ...l })).sort((a, b) => a.group.localeCompare(b.group) || a.topic.localeCompare(b.topic) || a.partition - b.partition),
  };
}

export type ConsumerLagTally = ReturnType<typeof consumerLagTally>;
