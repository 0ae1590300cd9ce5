import type { Request, Response, Router } from 'express';
import { Counter, Histogram } from 'prom-client';
import { ApiError, InfraError, rawHeaders, topics, type BusProducer, type KeyRing, type Logger } from '@evp/core';
import { createHttpApp, grantOf, requireKey, type HttpMetrics } from '@evp/http';
import { checkContentType, readBody } from './body';
import { cors } from './cors';
import { sliceEnvelopes } from './envelopes';

export interface GatewayLimits {
  maxBodyBytes: number;
  maxEventsPerRequest: number;
  /** Seconds a client should wait after a 503. */
  retryAfterSeconds: number;
}

export interface GatewayDeps {
  producer: BusProducer;
  keys: KeyRing;
  logger: Logger;
  limits: GatewayLimits;
  corsOrigins: string[];
  readiness?: () => Promise<string[]>;
  now?: () => number;
}

function ingestMetrics(metrics: HttpMetrics) {
  return {
    events: new Counter({ name: 'gateway_events_accepted_total', help: 'Events acknowledged after Kafka accepted them', registers: [metrics.registry] }),
    bytes: new Counter({ name: 'gateway_ingest_bytes_total', help: 'Decompressed body bytes acknowledged', registers: [metrics.registry] }),
    produceLatency: new Histogram({
      name: 'gateway_produce_duration_seconds',
      help: 'Time for Kafka to acknowledge a request (acks=all)',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [metrics.registry],
    }),
  };
}

/** The ingest API: thin, no per-event validation, and never a 2xx before Kafka has the data. */
export function createGatewayApp(deps: GatewayDeps) {
  const now = deps.now ?? Date.now;
  return createHttpApp({
    logger: deps.logger,
    metricsPrefix: 'gateway',
    readiness: deps.readiness,
    before: [cors(deps.corsOrigins)],
    routes: (router: Router, metrics: HttpMetrics) => {
      const m = ingestMetrics(metrics);
      const ingestLog = async (req: Request, res: Response) => {
        const grant = grantOf(req);
        checkContentType(req);
        const raw = await readBody(req, deps.limits.maxBodyBytes);
        const text = raw.toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch (err) {
          throw new ApiError('invalid_json', { message: `The body is not valid JSON: ${(err as Error).message}`, path: '$' });
        }
        const slices = sliceEnvelopes(body, text);
        const events = slices.reduce((n, s) => n + s.events, 0);
        if (events > deps.limits.maxEventsPerRequest) {
          throw new ApiError('too_many_events', {
            message: `The request holds ${events} events; the limit is ${deps.limits.maxEventsPerRequest}.`,
            path: '$',
            details: { events, max_events: deps.limits.maxEventsPerRequest },
          });
        }
        const requestId = req.requestId as string;
        const headers = {
          [rawHeaders.appId]: grant.appId,
          [rawHeaders.requestId]: requestId,
          [rawHeaders.receivedAt]: String(now()),
          [rawHeaders.keyId]: grant.keyId,
          [rawHeaders.payloadKind]: 'log',
        };
        const stop = m.produceLatency.startTimer();
        try {
          await deps.producer.send(
            topics.raw,
            slices.map((s) => ({ key: `${grant.appId}:${s.userId}`, value: Buffer.from(s.json), headers })),
          );
        } catch (err) {
          deps.logger.warn({ err, requestId }, 'produce failed; answering 503');
          throw new ApiError('unavailable', {
            retryAfterSeconds: deps.limits.retryAfterSeconds,
            details: { retriable: err instanceof InfraError ? err.retriable : true },
          });
        } finally {
          stop();
        }
        m.events.inc(events);
        m.bytes.inc(raw.length);
        res.status(200).json({ accepted: events, request_id: requestId });
      };
      router.post('/v1/ingest/log', requireKey(deps.keys, 'sdk'), ingestLog);
      router.post('/v1/ingest/events', requireKey(deps.keys, 'sdk'), ingestLog);
    },
  });
}
