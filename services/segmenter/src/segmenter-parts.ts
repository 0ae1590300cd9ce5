import type { Registry } from 'prom-client';
import type { Analytics, AppRetention, Bus, LeaseStore, Logger, SchemaRegistry, SubscriptionHealth, SuppressionSet } from '@evp/core';
import { CAMPAIGN_WORKER_NAME, type CampaignWorkerConfig, clickhouseReport, createCampaigns } from './campaigns';
import { SEGMENT_ENGINE_NAME, createSegments, type SegmentEngineConfig } from './segments';
import { SINK_NAME, createSink, type SinkConfig } from './sink';
import { SEGMENTER_PARTS, type SegmenterPart } from './config';

export interface SegmenterPartsDeps {
  /** What the segments, the campaigns and their reports read and write. */
  analytics: Analytics;
  /** What the sink inserts through; default `analytics` (the fault harness wraps it to inject insert faults). */
  sinkAnalytics?: Analytics;
  bus: Bus;
  registry: SchemaRegistry;
  logger: Logger;
  metrics?: Registry;
  sink?: Partial<SinkConfig>;
  segments?: Partial<SegmentEngineConfig>;
  campaigns?: Partial<CampaignWorkerConfig>;
  /** The clock of segment evaluations, campaigns and reports (injected in tests). Default Date.now. */
  now?: () => number;
  /**
   * The consuming parts this replica runs (config SEGMENTER_PARTS; default all). The engine's and the
   * worker's producing sides always start: the sink's rows and the API's requests go through them.
   * `api` is the caller's to serve.
   */
  parts?: readonly SegmenterPart[];
  /**
   * Each app's retention per class of data (the keys ring's `retention`, which follows the keys file
   * without a restart): the sink and the campaign worker stamp their rows with it. Default: the defaults.
   */
  retention?: (appId: string) => AppRetention;
  /**
   * Every app of the keys file (the ring's `apps`): with `retention`, the segment engine deletes
   * their ended memberships past the `history` days (docs/privacy.md). Absent: no expiry.
   */
  apps?: () => readonly string[];
  /**
   * The leases of the singleton timers (the campaign worker's allocation, `campaigns.adapt`; the
   * engine's expiry of ended memberships, `segments.expiry`): each turn runs only on the lease's
   * holder. Every replica must share one (Redis) for that to hold across replicas; an in-memory one
   * orders this process's turns only.
   */
  lease: LeaseStore;
  /** Suppressed (erased) people: the sink drops their rows, the campaign worker skips them. Absent: none is. */
  suppressions?: SuppressionSet;
  /** The `onDead` of each part's consumer, by the part's name. */
  onDead?: (part: 'sink' | 'segment work' | 'campaign trigger') => (error: Error) => void;
}

/**
 * The segmenter's consuming parts wired together, for every composition root that runs them (the
 * service's main.ts, `npm start`, the fault harness's chdb segmenter): the segment engine and its
 * API service, the campaigns (store, API service, worker) and the sink, whose stored rows feed the
 * engine's work and the worker's event triggers. The caller serves the HTTP API.
 */
export function createSegmenterParts(deps: SegmenterPartsDeps) {
  const { analytics, bus, registry, logger } = deps;
  const now = deps.now ? { now: deps.now } : {};
  const metrics = deps.metrics ? { metrics: deps.metrics } : {};
  const retention = deps.retention ? { retention: deps.retention } : {};
  // What the sink and the campaign worker both take: the bus, their metrics, retention and suppressions.
  const consuming = { bus, registry, logger, ...metrics, ...retention, ...(deps.suppressions ? { suppressions: deps.suppressions } : {}) };
  const dead = (part: Parameters<NonNullable<SegmenterPartsDeps['onDead']>>[0]) => (deps.onDead ? { onDead: deps.onDead(part) } : {});
  const segments = createSegments({
    analytics,
    bus,
    registry,
    logger,
    ...metrics,
    ...(deps.segments ? { config: deps.segments } : {}),
    ...now,
    ...dead('segment work'),
    ...(deps.apps && deps.retention ? { expiry: { apps: deps.apps, retention: deps.retention } } : {}),
    lease: deps.lease,
    // Called per DELETE request, after `campaigns` below exists.
    campaignsUsing: (appId, segmentId) => campaigns.usingSegment(appId, segmentId),
  });
  const campaigns = createCampaigns({
    analytics,
    segments: segments.engine.definitions,
    report: clickhouseReport(analytics, deps.now),
    worker: {
      ...consuming,
      ...(deps.campaigns ? { config: deps.campaigns } : {}),
      ...dead('campaign trigger'),
      lease: deps.lease,
    },
    ...now,
  });
  const { engine } = segments;
  const { worker } = campaigns;
  const sink = createSink({
    ...consuming,
    analytics: deps.sinkAnalytics ?? analytics,
    ...(deps.sink ? { config: deps.sink } : {}),
    ...dead('sink'),
    // Segment work first, then the campaigns' event triggers; a failure delivers the batch again.
    onInserted: async (rows) => {
      await engine.onInserted(rows);
      await worker.onInserted(rows);
    },
  });
  const runs = new Set<SegmenterPart>(deps.parts ?? SEGMENTER_PARTS);
  const consumers: Record<string, { health(): SubscriptionHealth }> = {
    // Named as the parts name themselves (their default group ids, their dead letters' processors).
    ...(runs.has('sink') ? { [SINK_NAME]: sink } : {}),
    ...(runs.has('segments') ? { [SEGMENT_ENGINE_NAME]: engine } : {}),
    ...(runs.has('campaigns') ? { [CAMPAIGN_WORKER_NAME]: worker } : {}),
  };
  return {
    segments,
    campaigns: { ...campaigns, worker },
    sink,
    /** Each consumer this replica runs, by its name in readiness answers. */
    consumers,
    /** The engine and the worker first, then the sink, whose stored rows they act on. */
    async start() {
      await engine.start({ consume: runs.has('segments') });
      await worker.start({ consume: runs.has('campaigns') });
      if (runs.has('sink')) await sink.start();
    },
    /**
     * The sink first (buffered rows inserted, their work and triggers produced, offsets committed),
     * then the engine and the worker, each finishing what it has in hand. Every part is stopped even
     * when one fails; the first failure is thrown.
     */
    async stop() {
      const failures: unknown[] = [];
      for (const part of [sink, engine, worker]) await part.stop().catch((err: unknown) => failures.push(err));
      if (failures.length > 0) throw failures[0];
    },
  };
}
