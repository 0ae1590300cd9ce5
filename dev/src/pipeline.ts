import { Registry } from 'prom-client';
import {
  allTopics,
  createInMemoryLeaseStore,
  followSuppressions,
  consumerProblems,
  type Analytics,
  type AnalystSql,
  type Bus,
  type KeyRing,
  type Logger,
  type SchemaRegistry,
  type Subscription,
} from '@evp/core';
import type { ActionStore } from '@evp/actions';
import { closeServer, createAccessLog, createEdge, createInMemoryAccessLogStorage, busMetrics, listen, userTokens, type AccessLog } from '@evp/http';
import { createClickHouseHttpHandler } from '@evp/clickhouse-http';
import { canonicalFromAvro } from '@evp/schemas';
import { createGatewayApp, type ScriptFiles } from '@evp/gateway';
import { bundleWebSdk } from '@evp/web-sdk/bundle';
import { bundleConsole } from '@evp/console';
import { startValidator } from '@evp/validator';
import {
  createPrivacyService,
  suppressionLog,
  createSegmenterApp,
  createSegmenterParts,
  loadConsoleAssets,
  runMigrations,
  startPrivacyProcessor,
  type SegmentEngineConfig,
} from '@evp/segmenter';
import { createActionStoreApp, startActionRequestsConsumer, startFeedbackConsumer, startLogRelay, startSweeper, storeReadiness } from '@evp/action-store';
import { platformOpenApi } from './openapi';
import { demoServer, isDemoPath } from './demo/demo-server';
import { bundleShop } from './demo/shop-page';
import { seedDemoDrugs } from './demo/drugs';

/** The four ports a pipeline runs on; embedded or real, the services are the same code. */
export interface PipelineParts {
  bus: Bus;
  registry: SchemaRegistry;
  analytics: Analytics;
  store: ActionStore;
}

export interface PipelineOptions {
  parts: PipelineParts;
  keys: KeyRing;
  logger: Logger;
  /** The keyed hash's secret for erasure and export (PRIVACY_HASH_KEY); absent, /v1/privacy is not served. */
  privacyHashKey?: string;
  /** How often the privacy processor runs (default 200 ms: one process, seconds matter in tests). */
  privacyIntervalMs?: number;
  /** The one port every public route is served on (0 picks a free one). */
  port?: number;
  host?: string;
  /** Consumer group suffix, so several pipelines can share one broker (tests). */
  groupSuffix?: string;
  /** Sink batching: small in tests and the demo so rows appear quickly. */
  sinkFlushMs?: number;
  /** Segment engine settings (e.g. a short recompute interval in tests). */
  segments?: Partial<SegmentEngineConfig>;
  /** The clock of segment evaluations (injected in tests of time-driven exits). Default Date.now. */
  now?: () => number;
  /** The validator's encode worker threads (default 0: inline, the simplest one-process demo). */
  validatorWorkers?: number;
  /** How often the action log relay looks at an empty outbox (default 200 ms). */
  actionLogIdleMs?: number;
  /** The web library's script build served at /sdk/ (default: built in process by esbuild on first request). */
  webSdk?: ScriptFiles;
  /**
   * Browser origins allowed on every SDK-key route of the three services (CORS_ORIGINS of the
   * distributed stack, the same allow-list semantics). Default `*`: apps of any origin use `npm start`.
   */
  corsOrigins?: readonly string[];
  /** Serve the demo shop at /demo for this SDK key's app, seeding its drug catalog when empty (npm start). */
  demo?: { sdkKey: string; userTokenKey?: { kid: string; secret: string } };
  /**
   * Analysts' read-only SQL: served as ClickHouse's HTTP interface under `{base}/clickhouse/` and,
   * when `clickhouseHttpPort` is given, on that port too (0 picks a free one).
   */
  analystSql?: AnalystSql;
  clickhouseHttpPort?: number;
  /** The database analysts' queries run in (default `analytics`, npm start's). */
  analystDatabase?: string;
  /**
   * The access log of every read (docs/privacy.md, "Access log"), shared by the SQL interface, the
   * inspector, the segments API and the bulk pull. Default: in memory (npm start; gone at exit).
   */
  accessLog?: AccessLog;
  /** More series for /metrics (npm start: the keys file's reload series). */
  metrics?: Registry;
}

export interface RunningPipeline {
  /** The one base URL: every public route (packages/http/src/public-routes.ts), /healthz, /readyz, /metrics. */
  baseUrl: string;
  /** The base URL again, for code written when the gateway and action store had a port each. */
  gatewayUrl: string;
  actionsUrl: string;
  /** ClickHouse's HTTP interface on its own port, when started with one. */
  clickhouseHttpUrl?: string;
  /** Consumers that are stopped or dead (empty while all run); also the gateway's readiness. */
  consumerProblems(): string[];
  stop(): Promise<void>;
}

/**
 * Starts gateway → validator → sink, and the action store with its consumers and its action log
 * relay (outbox → actions.log → the sink's actions_log), on the given parts.
 * Shutdown runs in reverse: HTTP first (no new work), then consumers, then producers and stores.
 */
export async function startPipeline(opts: PipelineOptions): Promise<RunningPipeline> {
  const { bus, registry, analytics, store } = opts.parts;
  const { logger, keys } = opts;
  const suffix = opts.groupSuffix ? `.${opts.groupSuffix}` : '';
  const host = opts.host ?? '127.0.0.1';
  const accessLog = opts.accessLog ?? createAccessLog(createInMemoryAccessLogStorage());
  await bus.ensureTopics(allTopics());
  await runMigrations({ analytics, logger });
  // Who is suppressed (an erasure's first step), as every part reads it; none without a hash key.
  const suppressions = opts.privacyHashKey ? await followSuppressions(bus, opts.privacyHashKey) : undefined;
  await suppressions?.ready();
  const suppressed = suppressions ? { suppressions } : {};

  const validatorMetrics = new Registry();
  const validator = await startValidator({
    metrics: validatorMetrics,
    bus,
    registry,
    logger: logger.child({ service: 'validator' }),
    config: { groupId: `validator${suffix}`, workers: opts.validatorWorkers ?? 0 },
    // The keys file's privacy policy and pseudonym keys, as the ring holds them after each reload.
    privacy: () => keys.privacyTable(),
    ...suppressed,
  });
  const segmenterParts = createSegmenterParts({
    analytics,
    bus,
    registry,
    logger: logger.child({ service: 'segmenter' }),
    sink: { groupId: `segmenter-sink${suffix}`, batchMaxWaitMs: opts.sinkFlushMs ?? 200 },
    segments: { groupId: `segmenter-segments${suffix}`, ...opts.segments },
    campaigns: { groupId: `segmenter-campaigns${suffix}`, entryGroupId: `segmenter-campaign-entries${suffix}` },
    ...(opts.now ? { now: opts.now } : {}),
    retention: (appId) => keys.retention(appId),
    // Ended memberships past each app's `history` days are deleted every SEGMENTS_EXPIRY_INTERVAL_MS (an hour).
    apps: () => keys.apps(),
    // One process: its timers' leases are its own (the service takes them in Redis, shared by its replicas).
    lease: createInMemoryLeaseStore(),
    ...suppressed,
  });
  const { segments, campaigns, sink } = segmenterParts;
  await segmenterParts.start();
  // The gateway and the action store check user tokens in one process: one user_tokens_total series,
  // and one last-hour count store (the ring's), which the segmenter's app reads.
  const tokenMetrics = new Registry();
  const tokens = userTokens(keys, tokenMetrics);
  // The action store's app first: its metrics registry (on /metrics) also carries its consumers' counters.
  const corsOrigins = opts.corsOrigins ?? ['*'];
  const actions = createActionStoreApp({
    ...suppressed,
    store,
    keys,
    logger: logger.child({ service: 'action-store' }),
    corsOrigins,
    userTokens: tokens,
    accessLog,
  });
  const consumers: Subscription[] = [
    await startActionRequestsConsumer({
      ...suppressed,
      bus,
      store,
      logger: logger.child({ service: 'action-store' }),
      groupId: `action-store.requests${suffix}`,
      metrics: actions.metrics.registry,
    }),
    await startFeedbackConsumer({
      bus,
      store,
      logger: logger.child({ service: 'action-store' }),
      groupId: `action-store.feedback${suffix}`,
      metrics: actions.metrics.registry,
      decode: async (value) => canonicalFromAvro((await registry.decode(value)) as Record<string, unknown>),
    }),
  ];

  const problems = () =>
    consumerProblems({
      validator,
      ...segmenterParts.consumers,
      'action-store.requests': consumers[0] as Subscription,
      'action-store.feedback': consumers[1] as Subscription,
    });
  const sweeper = startSweeper({ store, logger: logger.child({ service: 'action-store' }), intervalMs: 10_000 });
  const producer = await bus.producer();
  const relay = startLogRelay({
    store,
    producer,
    registry,
    logger: logger.child({ service: 'action-store' }),
    metrics: actions.metrics.registry,
    ...(opts.actionLogIdleMs === undefined ? {} : { idleMs: opts.actionLogIdleMs }),
  });
  const gateway = createGatewayApp({
    producer,
    keys,
    logger: logger.child({ service: 'gateway' }),
    corsOrigins,
    limits: { maxBodyBytes: 5 * 1024 * 1024, maxEventsPerRequest: 5000, retryAfterSeconds: 5 },
    // One process: the gateway is ready only while every consumer behind it runs.
    readiness: async () => problems(),
    webSdk: opts.webSdk ?? bundleWebSdk,
    userTokens: tokens,
    ...suppressed,
  });
  const privacyLogger = logger.child({ service: 'segmenter', part: 'privacy' });
  // One process: the erasure reaches the action store this pipeline composed (embedded or Redis).
  const privacy = opts.privacyHashKey
    ? createPrivacyService({ analytics, logger: privacyLogger, hashKey: opts.privacyHashKey, actions: store, ...suppressionLog(producer) })
    : undefined;
  const privacyProcessor = privacy && startPrivacyProcessor({ privacy, logger: privacyLogger, intervalMs: opts.privacyIntervalMs ?? 200 });
  const segmenter = createSegmenterApp({
    analytics,
    keys,
    logger: logger.child({ service: 'segmenter' }),
    segments: segments.service,
    campaigns: campaigns.service,
    ...(privacy ? { privacy } : {}),
    corsOrigins,
    console: loadConsoleAssets({ build: await bundleConsole() }),
    accessLog,
  });
  const storeReady = storeReadiness(store);
  const edge = createEdge({
    logger: logger.child({ service: 'edge' }),
    services: { gateway: gateway.app, 'action-store': actions.app, segmenter: segmenter.app },
    readiness: async () => [...problems(), ...(await storeReady())],
    registries: [
      gateway.metrics.registry,
      actions.metrics.registry,
      segmenter.metrics.registry,
      validatorMetrics,
      tokenMetrics,
      sink.metrics,
      segments.engine.metrics,
      campaigns.worker.metrics,
      // One bus serves every part: its dead letters and every group’s lag are reported once, for all of them.
      busMetrics(bus),
      ...(opts.metrics ? [opts.metrics] : []),
    ],
    openApi: platformOpenApi(),
  });
  const demoApp = opts.demo ? keys.lookup(opts.demo.sdkKey)?.appId : undefined;
  if (opts.demo && demoApp === undefined) throw new Error('the demo shop needs an SDK key of the keys file');
  const demo =
    opts.demo && demoApp !== undefined
      ? demoServer({
          analytics,
          appId: demoApp,
          sdkKey: opts.demo.sdkKey,
          logger: logger.child({ service: 'demo' }),
          shop: await bundleShop(),
          ...(opts.demo.userTokenKey ? { userTokenKey: opts.demo.userTokenKey } : {}),
        })
      : undefined;
  const sql = opts.analystSql;
  const chOnBase = sql
    ? createClickHouseHttpHandler({
        sql,
        keys,
        logger: logger.child({ service: 'clickhouse-http' }),
        database: opts.analystDatabase ?? 'analytics',
        prefix: '/clickhouse',
        accessLog,
      })
    : undefined;
  // One base URL: ClickHouse's HTTP interface and the demo shop answer in front of the edge's routes.
  const front = (url: string | undefined) => (chOnBase && /^\/clickhouse(\/|\?|$)/.test(url ?? '') ? chOnBase : demo && isDemoPath(url) ? demo : edge);
  const server = await listen((req, res) => front(req.url)(req, res), opts.port ?? 0, host);
  const baseUrl = `http://${host}:${server.port}`;
  const chServer =
    sql && opts.clickhouseHttpPort !== undefined
      ? await listen(
          createClickHouseHttpHandler({
            sql,
            keys,
            logger: logger.child({ service: 'clickhouse-http' }),
            database: opts.analystDatabase ?? 'analytics',
            accessLog,
          }),
          opts.clickhouseHttpPort,
          host,
        )
      : undefined;
  if (opts.demo && demoApp !== undefined) {
    const seeded = await seedDemoDrugs({ analytics, appId: demoApp, baseUrl, sdkKey: opts.demo.sdkKey });
    if (seeded) logger.info({ appId: demoApp }, 'demo: seeded the drug catalog');
  }

  return {
    baseUrl,
    gatewayUrl: baseUrl,
    actionsUrl: baseUrl,
    ...(chServer ? { clickhouseHttpUrl: `http://${host}:${chServer.port}` } : {}),
    consumerProblems: problems,
    async stop() {
      await closeServer(server.server).catch(() => undefined);
      if (chServer) await closeServer(chServer.server).catch(() => undefined);
      await sql?.close();
      // The segmenter's parts stop the sink before the engine and the worker: its last stored rows' work is produced first.
      await Promise.allSettled([validator.stop(), segmenterParts.stop(), privacyProcessor?.stop(), sweeper.stop(), ...consumers.map((c) => c.stop())]);
      await relay.stop();
      await Promise.allSettled([producer.close(), keys.usage.close(), suppressions?.close()]);
    },
  };
}
