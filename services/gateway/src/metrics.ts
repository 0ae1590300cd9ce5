import { Counter, Histogram } from 'prom-client';
import type { HttpMetrics } from '@evp/http';

/** Ingest-specific metrics, registered beside the shared HTTP ones (requests by route/status, latency). */
export function createIngestMetrics(metrics: HttpMetrics) {
  const registers = [metrics.registry];
  return {
    events: new Counter({
      name: 'gateway_events_accepted_total',
      help: 'Events and catalog records acknowledged after Kafka accepted them',
      labelNames: ['kind'],
      registers,
    }),
    bytes: new Counter({ name: 'gateway_ingest_bytes_total', help: 'Decompressed body bytes acknowledged', registers }),
    produceLatency: new Histogram({
      name: 'gateway_produce_duration_seconds',
      help: 'Time for Kafka to acknowledge a request (acks=all)',
      labelNames: ['outcome'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    suppressed: new Counter({
      name: 'gateway_suppressed_envelopes_total',
      help: 'Envelopes of suppressed (erased) users dropped: answered 200, never stored',
      registers,
    }),
    rateLimited: new Counter({ name: 'gateway_rate_limited_total', help: 'Requests refused with 429', registers }),
    rateLimitErrors: new Counter({
      name: 'gateway_rate_limit_errors_total',
      help: 'Rate-limit checks that failed (store unreachable) and were let through',
      registers,
    }),
  };
}

export type IngestMetrics = ReturnType<typeof createIngestMetrics>;
