import type { Server } from 'node:http';
import type { BusProducer, Logger } from '@evp/core';
import { closeServer } from '@evp/http';

export interface ShutdownDeps {
  server: Server;
  producer: BusProducer;
  logger: Logger;
  /** Called first so /readyz turns 503 and a load balancer stops sending. */
  onDrain?: () => void;
  /** Closed last, together (Redis, the bus's admin client). */
  closers?: (() => Promise<void>)[];
  graceMs?: number;
}

/**
 * Reverse order of start-up: stop accepting and let in-flight requests finish (each one still waits
 * for its Kafka ack), then flush and close the producer, then the stores. Never throws.
 */
export async function shutdownGateway(deps: ShutdownDeps): Promise<void> {
  deps.onDrain?.();
  await closeServer(deps.server, { graceMs: deps.graceMs }).catch((err) => deps.logger.error({ err }, 'http close failed'));
  const [producer] = await Promise.allSettled([deps.producer.close()]);
  if (producer?.status === 'rejected') deps.logger.error({ err: producer.reason }, 'producer close failed');
  for (const r of await Promise.allSettled((deps.closers ?? []).map((c) => c()))) {
    if (r.status === 'rejected') deps.logger.error({ err: r.reason }, 'close failed');
  }
}
