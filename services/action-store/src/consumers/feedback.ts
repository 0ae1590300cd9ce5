import type { Registry } from 'prom-client';
import { UnreadableMessageError, errorMessage, isFeedbackEventName, isRetriable, processorOf, topics } from '@evp/core';
import type { Bus, BusMessage, Logger, Subscription } from '@evp/core';
import { feedbackFromEvent, type ActionStore, type FeedbackEventLike } from '@evp/actions';
import { createFeedbackMetrics } from '../metrics';

export interface FeedbackConsumerDeps {
  bus: Bus;
  store: ActionStore;
  logger: Logger;
  /** Turns an `actions.feedback` (or `events.core`) value into an event (Avro wire format → canonical event in production). */
  decode: (value: Buffer) => Promise<FeedbackEventLike>;
  groupId?: string;
  /**
   * Also read `events.core` (FEEDBACK_FROM_CORE): during an upgrade, feedback that validators without
   * the `actions.feedback` copy wrote is only there. A copy read from both topics counts once.
   */
  fromCore?: boolean;
  metrics?: Registry;
}

/**
 * Updates delivery state from `nudge_response` (alias `action_response`) events on `actions.feedback`,
 * where the validator copies them from `events.core` (before it, this consumer read all of
 * `events.core`, and kafkajs fetched and decoded the records of every event there: bench/feedback).
 * Counting is idempotent per (action, user, response), so redelivered batches count nothing twice.
 * An `error` keeps its `details` as the user's latest error report (stats `last_errors`). Every
 * other event is ignored, identify `blocked`/`unblocked` included: those describe the user's
 * account, and lifting a nudge block is an explicit API call (docs/actions.md, Feedback).
 * Store and registry failures throw (the batch comes again); malformed feedback is counted
 * (`invalid`; the event itself is stored by the sink). A response to a nudge the platform never
 * issued (a ref of another shape, or one no action has) is counted as `unknown` and not logged: a
 * client answering invented nudges (the synthetic data generator: ~100 a minute) would otherwise
 * write one warn line each. A message that cannot be decoded is dead-lettered, never skipped: every
 * message of a batch is decoded before any is acted on, so the guard's bisection around it counts
 * each good one once. An event whose `name` header names another event is skipped without decoding
 * (with `fromCore`, most of what is read is not feedback); one without the header (written before
 * it existed) is decoded.
 */
export async function startFeedbackConsumer(deps: FeedbackConsumerDeps): Promise<Subscription> {
  const counter = createFeedbackMetrics(deps.metrics);
  const log = deps.logger.child({ consumer: 'feedback' });
  return deps.bus.subscribe({
    groupId: deps.groupId ?? 'action-store.feedback',
    topics: deps.fromCore ? [topics.actionsFeedback, topics.events('core')] : [topics.actionsFeedback],
    processor: processorOf('action-store'),
    handleBatch: async (batch) => {
      const events: { msg: BusMessage; event: FeedbackEventLike }[] = [];
      for (const msg of batch.messages) {
        const name = msg.headers.name;
        if (name !== undefined && !isFeedbackEventName(name)) continue;
        try {
          events.push({ msg, event: await deps.decode(msg.value) });
        } catch (err) {
          // The registry being unreachable says nothing about the message: give the batch back.
          if (isRetriable(err)) throw err;
          throw new UnreadableMessageError('unreadable', `not an event: ${errorMessage(err)}`, { cause: err });
        }
      }
      for (const { msg, event } of events) {
        const where = { topic: msg.topic, partition: msg.partition, offset: msg.offset };
        const fb = feedbackFromEvent(event);
        if (fb.kind === 'ignored') continue;
        if (fb.kind === 'unknown') {
          counter.inc({ outcome: 'unknown' });
          continue;
        }
        if (fb.kind === 'invalid') {
          log.warn({ ...where, reason: fb.reason }, 'skipping a malformed nudge_response');
          counter.inc({ outcome: 'invalid' });
          continue;
        }
        const status = await deps.store.recordFeedback(fb.appId, fb.feedback);
        counter.inc({ outcome: status });
      }
    },
  });
}
