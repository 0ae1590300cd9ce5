import type { NextFunction, Request, Response } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Bus, Logger } from '@evp/core';

/*
 * Every series the shared packages declare (scripts/lint.js keeps `new Counter/Gauge/Histogram` in
 * metrics.ts files): HTTP requests, the bus's dead letters and consumer lag, the keys file's reloads
 * and the keys' last-use writes. Each is registered in the registry the service gives it.
 */

/** One metrics registry per app instance (no global default), so tests and embedded mode don't collide. */
export interface HttpMetrics {
  registry: Registry;
  requests: Counter<'route' | 'method' | 'status'>;
  latency: Histogram<'route' | 'method'>;
}

export function createHttpMetrics(prefix: string, opts: { defaultMetrics?: boolean } = {}): HttpMetrics {
  const registry = new Registry();
  if (opts.defaultMetrics) collectDefaultMetrics({ register: registry, prefix: `${prefix}_` });
  return {
    registry,
    requests: new Counter({
      name: `${prefix}_http_requests_total`,
      help: 'HTTP requests by route, method and status',
      labelNames: ['route', 'method', 'status'],
      registers: [registry],
    }),
    latency: new Histogram({
      name: `${prefix}_http_request_duration_seconds`,
      help: 'HTTP request latency by route',
      labelNames: ['route', 'method'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
  };
}

/**
 * What a process's bus reports, read from it at scrape time and registered in `registry` (a new one
 * by default), which is returned:
 * - `dead_letters_total{source_topic, group}`: the dead letters its producers wrote durably (every
 *   consumer's, and the sink's refused rows);
 * - `consumer_lag_messages{group, topic, partition}` and `consumer_lag_seconds{…}`: every consumer
 *   group's lag per partition as of the last batch it handled (Bus.consumerLag).
 * One per process: a process has one bus, and `npm start`'s one bus serves every part, so the series
 * never collide.
 */
export function busMetrics(bus: Pick<Bus, 'deadLetterCounts' | 'consumerLag'>, registry = new Registry()): Registry {
  new Counter({
    name: 'dead_letters_total',
    help: 'Messages written to `deadletters` (what a consumer could not handle), by source topic and consumer group',
    labelNames: ['source_topic', 'group'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const c of bus.deadLetterCounts()) this.inc({ source_topic: c.sourceTopic, group: c.group }, c.count);
    },
  });
  const lagGauge = (unit: 'messages' | 'seconds', help: string) =>
    new Gauge({
      name: `consumer_lag_${unit}`,
      help,
      labelNames: ['group', 'topic', 'partition'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const l of bus.consumerLag()) this.set({ group: l.group, topic: l.topic, partition: String(l.partition) }, l[unit]);
      },
    });
  lagGauge(
    'messages',
    "Messages in the partition beyond the last one the group handled (the partition's high watermark at that batch's fetch), by group, topic and partition",
  );
  lagGauge(
    'seconds',
    'How far behind in time the group was at its last batch on the partition: 0 when caught up, else from the log time of the last message it handled to that batch being handled',
  );
  return registry;
}

/** The keys file's reloads (keys/reload.ts): changes applied or rejected, whether the file is the set in use, keys loaded. */
export function createKeysFileMetrics(registry: Registry) {
  return {
    reloads: new Counter({
      name: 'keys_reloads_total',
      help: 'Keys file changes seen: applied (the new keys are in use) or rejected (the last good keys stay in use)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    valid: new Gauge({ name: 'keys_file_valid', help: '1 while the keys file on disk is the set in use; 0 while it is rejected', registers: [registry] }),
    loaded: new Gauge({ name: 'keys_loaded', help: 'Keys in use (revoked ones included)', registers: [registry] }),
  };
}

/** User token checks (user-tokens/): per app and outcome, under report and enforce (off checks nothing). */
export function createUserTokenMetrics(registry: Registry) {
  return {
    checks: new Counter({
      name: 'user_tokens_total',
      help: 'User token checks of SDK-key calls by app and outcome: valid, anonymous (an anon: id, no token needed), required (none sent), invalid, expired, mismatch (another user)',
      labelNames: ['app', 'outcome'] as const,
      registers: [registry],
    }),
  };
}

/** Failed writes of the last hour's user token counts (keys/service-keys.ts): the requests went on regardless. */
export function createUserTokenCountMetrics(registry: Registry) {
  return {
    flushFailures: new Counter({
      name: 'user_token_counts_flush_failures_total',
      help: 'Writes of user token outcome counts to the shared store that failed (kept and retried at the next flush while within the hour)',
      registers: [registry],
    }),
  };
}

/** Failed writes of the keys' last uses (keys/service-keys.ts). */
export function createKeyUsageMetrics(registry: Registry) {
  return {
    flushFailures: new Counter({
      name: 'keys_usage_flush_failures_total',
      help: 'Writes of keys’ last uses that failed (kept and retried at the next flush)',
      registers: [registry],
    }),
  };
}

/**
 * One 'finish' listener per request records its metrics and, when given a logger, its access-log
 * line: request id, method, route, status, duration and the key's app and id — chosen fields only,
 * never headers, so an Authorization key cannot reach the logs whatever the redaction list says.
 * Label children are looked up once per (route, method, status), not hashed per request.
 */
export function observeRequests(metrics: HttpMetrics, accessLogger?: Logger) {
  const counters = new Map<string, Counter.Internal>();
  const histograms = new Map<string, Histogram.Internal<'route' | 'method'>>();
  return (req: Request, res: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      // The matched route pattern, never the raw path, keeps label cardinality bounded.
      const route = (req.route?.path as string | undefined) ?? 'unmatched';
      const status = res.statusCode;
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const key = `${route} ${req.method}`;
      let latency = histograms.get(key);
      if (!latency) histograms.set(key, (latency = metrics.latency.labels({ route, method: req.method })));
      let count = counters.get(`${key} ${status}`);
      if (!count) counters.set(`${key} ${status}`, (count = metrics.requests.labels({ route, method: req.method, status: String(status) })));
      count.inc();
      latency.observe(seconds);
      accessLogger?.info(
        {
          requestId: req.requestId,
          method: req.method,
          route,
          status,
          ms: seconds * 1000,
          ...(req.grant ? { app: req.grant.appId, keyId: req.grant.keyId } : {}),
        },
        'request',
      );
    });
    next();
  };
}
