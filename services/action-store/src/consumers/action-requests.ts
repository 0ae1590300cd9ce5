import type { Registry } from 'prom-client';
import {
  UnreadableMessageError,
  errorMessage,
  processorOf,
  topics,
  type Bus,
  type BusMessage,
  type Logger,
  type Subscription,
  type SuppressionSet,
} from '@evp/core';
import { ACTION_SOURCES, parseActionRequestMessage, type ActionRequestMessage, type ActionStore } from '@evp/actions';
import { createActionRequestsMetrics } from '../metrics';

export interface ActionRequestsConsumerDeps {
  bus: Bus;
  store: ActionStore;
  logger: Logger;
  groupId?: string;
  metrics?: Registry;
  /** Suppressed (erased) users: their requested actions are not created, counted as status `suppressed`. */
  suppressions?: SuppressionSet;
}

/** The action store as named in its dead letters. */
export const ACTION_STORE_PROCESSOR = processorOf('action-store');

/**
 * A message of `actions.requested` → what to create; one that is not JSON, breaks the message
 * contract, or names another app in its `app_id` header than in its body throws
 * UnreadableMessageError (the consumer guard dead-letters it).
 */
function readRequest(msg: BusMessage): ActionRequestMessage {
  let value: unknown;
  try {
    value = JSON.parse(msg.value.toString('utf8'));
  } catch (err) {
    throw new UnreadableMessageError('unreadable', `not JSON: ${errorMessage(err)}`);
  }
  const parsed = parseActionRequestMessage(value);
  if (!parsed.ok) {
    throw new UnreadableMessageError('invalid', parsed.reasons.map((i) => `${i.path}: ${i.message}`).join('; '));
  }
  const header = msg.headers.app_id;
  if (header !== undefined && header !== parsed.value.app_id) {
    throw new UnreadableMessageError('invalid', `app_id header ${header} and body ${parsed.value.app_id} disagree`);
  }
  return parsed.value;
}

/**
 * Creates the actions campaign services publish on `actions.requested` (with their frequency caps
 * and available_at, checked by the store). A store failure throws, so the batch is delivered again
 * (creation is idempotent: every requested action carries both ids). A message that can never
 * succeed is dead-lettered, never skipped: every message of a batch is read before any is acted on,
 * so the guard's bisection around a bad one re-reads but creates each good one once.
 */
export async function startActionRequestsConsumer(deps: ActionRequestsConsumerDeps): Promise<Subscription> {
  const { counter, actions } = createActionRequestsMetrics(deps.metrics);
  return deps.bus.subscribe({
    groupId: deps.groupId ?? 'action-store.requests',
    topics: [topics.actionsRequested],
    processor: ACTION_STORE_PROCESSOR,
    handleBatch: async (batch) => {
      const requests = batch.messages.map(readRequest);
      for (const request of requests) {
        // A campaign's request is no caller to answer: an erased user's actions are left out, counted.
        const set = deps.suppressions;
        const wanted = set ? request.actions.filter((a) => !set.has(request.app_id, 'user', a.user_id)) : request.actions;
        if (wanted.length < request.actions.length) actions.inc({ status: 'suppressed' }, request.actions.length - wanted.length);
        const results = wanted.length > 0 ? await deps.store.create(request.app_id, wanted, { source: request.source ?? ACTION_SOURCES.requested }) : [];
        counter.inc({ outcome: 'stored' });
        for (const r of results) actions.inc({ status: r.status });
      }
    },
  });
}
