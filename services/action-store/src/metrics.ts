import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * Every series the action store declares (scripts/lint.js keeps `new Counter/Gauge/Histogram` in
 * metrics.ts files), each registered in the registry its part is given (none: counted, not
 * exported). The HTTP series, dead letters and every consumer group's lag are the shared ones of
 * @evp/http.
 */

const registersOf = (registry: Registry | undefined) => (registry ? [registry] : []);

/** The HTTP routes' outcomes: actions created, unblocks, entries delivered by pulls. */
export function createActionRouteMetrics(registry: Registry) {
  return {
    created: new Counter({
      name: 'action_store_actions_created_total',
      help: 'Actions submitted through POST /v1/actions, by outcome',
      labelNames: ['status'] as const,
      registers: [registry],
    }),
    unblocked: new Counter({
      name: 'action_store_unblock_requests_total',
      help: 'DELETE /v1/actions/{action_id}/blocks/{user_id} answered 200, by outcome',
      labelNames: ['status'] as const,
      registers: [registry],
    }),
    delivered: new Counter({
      name: 'action_store_actions_delivered_total',
      help: 'Entries returned by pulls, by route and delivery mode',
      labelNames: ['route', 'delivery_mode'] as const,
      registers: [registry],
    }),
  };
}

/** The actions.requested consumer: messages stored, and each action's create status (a campaign watches `capped`). */
export function createActionRequestsMetrics(registry: Registry | undefined) {
  return {
    counter: new Counter({
      name: 'action_store_requested_messages_total',
      help: 'actions.requested messages stored (those that cannot be read are dead-lettered: dead_letters_total)',
      labelNames: ['outcome'] as const,
      registers: registersOf(registry),
    }),
    actions: new Counter({
      name: 'action_store_requested_actions_total',
      help: 'actions of actions.requested messages by create status (created, duplicate, expired, blocked, capped)',
      labelNames: ['status'] as const,
      registers: registersOf(registry),
    }),
  };
}

/** The feedback consumer: nudge_response events by outcome. */
export function createFeedbackMetrics(registry: Registry | undefined) {
  return new Counter({
    name: 'action_store_feedback_events_total',
    help: 'nudge_response events by outcome',
    labelNames: ['outcome'] as const,
    registers: registersOf(registry),
  });
}

/** The action log relay: entries relayed, failed steps, and the outbox's length read at scrape time by `outboxLength`. */
export function createLogRelayMetrics(registry: Registry | undefined, outboxLength: () => Promise<number>) {
  const registers = registersOf(registry);
  new Gauge({
    name: 'action_store_log_outbox_records',
    help: 'Action log outbox records not acknowledged yet (each holds the steps of one kind of one store operation)',
    registers,
    async collect() {
      // Read at scrape time; a store that cannot answer leaves the last value.
      const n = await outboxLength().catch(() => undefined);
      if (n !== undefined) this.set(n);
    },
  });
  return {
    relayed: new Counter({
      name: 'action_store_log_entries_relayed_total',
      help: 'Action log entries written to actions.log (and acknowledged in the outbox), by kind',
      labelNames: ['kind'] as const,
      registers,
    }),
    failures: new Counter({
      name: 'action_store_log_relay_failures_total',
      help: 'Action log relay steps that failed and were retried, by step',
      labelNames: ['stage'] as const,
      registers,
    }),
  };
}
