import type { Registry } from 'prom-client';
import type { Analytics, Bus, Logger, SchemaRegistry } from '@evp/core';
import { createSegmentEngine, type SegmentEngine, type SegmentEngineDeps } from './engine';
import type { SegmentEngineConfig } from './options';
import { segmentLanguage } from './segment-language';
import { createSegmentsService, type SegmentsService } from './service';

export interface SegmentsDeps {
  analytics: Analytics;
  bus: Bus;
  registry: SchemaRegistry;
  logger: Logger;
  metrics?: Registry;
  config?: Partial<SegmentEngineConfig>;
  now?: () => number;
  onDead?: (error: Error) => void;
  /** The apps and their retention for the expiry of ended memberships (SegmentEngineDeps.expiry). */
  expiry?: SegmentEngineDeps['expiry'];
  /** Where the expiry's lease is held (SegmentEngineDeps.lease). */
  lease?: SegmentEngineDeps['lease'];
  /** The campaigns that name a segment (campaigns/compose.ts `usingSegment`), so the API refuses deleting it; late-bound: campaigns are composed after segments. */
  campaignsUsing?: (appId: string, segmentId: string) => Promise<string[]>;
}

/**
 * Segments as one part, for both composition roots (the segmenter's main.ts and `npm start`): the
 * engine (work consumer, timers, the sink's hook) compiles saved definitions with the same language
 * the API checks them with, and the API's service saves through the engine's stores.
 */
export function createSegments(deps: SegmentsDeps): { engine: SegmentEngine; service: SegmentsService } {
  // References resolve against the app's segments as saved now (read through the engine's store).
  const language = segmentLanguage({ list: (appId) => engine.definitions.list(appId) });
  const engine = createSegmentEngine({
    analytics: deps.analytics,
    bus: deps.bus,
    registry: deps.registry,
    logger: deps.logger,
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    ...(deps.config ? { config: deps.config } : {}),
    ...(deps.now ? { now: deps.now } : {}),
    ...(deps.onDead ? { onDead: deps.onDead } : {}),
    ...(deps.expiry ? { expiry: deps.expiry } : {}),
    ...(deps.lease ? { lease: deps.lease } : {}),
    compile: (segment) => language.compile(segment.app_id, segment.definition),
  });
  const service = createSegmentsService({
    ...language,
    definitions: engine.definitions,
    membership: engine.membership,
    scheduler: engine.scheduler,
    analytics: deps.analytics,
    onChanged: () => engine.refresh(),
    ...(deps.campaignsUsing ? { campaignsUsing: deps.campaignsUsing } : {}),
    ...(deps.now ? { now: deps.now } : {}),
  });
  return { engine, service };
}
