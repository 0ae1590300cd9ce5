import { Counter, type Registry } from 'prom-client';
import { errorMessage, topics, type Bus, type Logger, type Subscription } from '@evp/core';
import { ACTION_SOURCES, parseActionRequestMessage, type ActionStore } from '@evp/actions';

export interface ActionRequestsConsumerDeps {
  bus: Bus;
  store: ActionStore;
  logger: Logger;
  groupId?: string;
  metrics?: Registry;
}

/**
 * Creates the actions campaign services publish on `actions.requested` (with their frequency caps
 * and available_at, checked by the store). A store failure throws, so
 * the batch is delivered again (creation is idempotent: every requested action carries both ids).
 * A malformed message can never succeed; it is logged with its reasons and skipped, so it cannot
 * block the partition.
 */
export async function startActionRequestsConsumer(deps: ActionRequestsConsumerDeps): Promise<Subscription> {
  const counter = new Counter({
    name: 'action_store_requested_messages_total',
    help: 'actions.requested messages by outcome',
    labelNames: ['outcome'] as const,
    registers: deps.metrics ? [deps.metrics] : [],
  });
  // Per action: a campaign watches `capped` here (and `duplicate` under redelivery).
  const actions = new Counter({
    name: 'action_store_requested_actions_total',
    help: 'actions of actions.requested messages by create status (created, duplicate, expired, blocked, capped)',
    labelNames: ['status'] as const,
    registers: deps.metrics ? [deps.metrics] : [],
  });
  const log = deps.logger.child({ consumer: 'actions.requested' });
  return deps.bus.subscribe({
    groupId: deps.groupId ?? 'action-store.requests',
    topics: [topics.actionsRequested],
    handleBatch: async (batch) => {
      for (const msg of batch.messages) {
        const where = { topic: msg.topic, partition: msg.partition, offset: msg.offset };
        let value: unknown;
        try {
          value = JSON.parse(msg.value.toString('utf8'));
        } catch (err) {
          log.warn({ ...where, reason: errorMessage(err) }, 'skipping a message that is not JSON');
          counter.inc({ outcome: 'rejected' });
          continue;
        }
        const parsed = parseActionRequestMessage(value);
        if (!parsed.ok) {
          log.warn({ ...where, reasons: parsed.issues }, 'skipping an invalid actions.requested message');
          counter.inc({ outcome: 'rejected' });
          continue;
        }
        const header = msg.headers.app_id;
        if (header !== undefined && header !== parsed.value.app_id) {
          log.warn({ ...where, header, body: parsed.value.app_id }, 'skipping a message whose app_id header and body disagree');
          counter.inc({ outcome: 'rejected' });
          continue;
        }
        const results = await deps.store.create(parsed.value.app_id, parsed.value.actions, { source: parsed.value.source ?? ACTION_SOURCES.requested });
        counter.inc({ outcome: 'stored' });
        for (const r of results) actions.inc({ status: r.status });
      }
    },
  });
}
