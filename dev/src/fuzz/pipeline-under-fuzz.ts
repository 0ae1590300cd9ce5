import { createLogger, type Analytics } from '@evp/core';
import { createEmbeddedParts } from '../embedded-parts';
import { startPipeline, type RunningPipeline } from '../pipeline';
import { API_KEY, SDK_KEY, e2eKeys } from '../testing/scenario';
import type { FuzzOptions } from './run';

/** The embedded pipeline (in-process bus, chdb in memory) with its two HTTP services on loopback. */
export async function startPipelineUnderFuzz(
  database: string,
): Promise<{ pipeline: RunningPipeline; analytics: Analytics; targets: FuzzOptions['targets']; keys: FuzzOptions['keys']; stop(): Promise<void> }> {
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database });
  const pipeline = await startPipeline({ parts, keys: e2eKeys(), logger: createLogger('fuzz', 'silent'), sinkFlushMs: 50 });
  const at = (url: string) => ({ host: new URL(url).hostname, port: Number(new URL(url).port) });
  return {
    pipeline,
    analytics: parts.analytics,
    targets: { gateway: at(pipeline.gatewayUrl), actions: at(pipeline.actionsUrl) },
    keys: { sdk: SDK_KEY, api: API_KEY },
    async stop() {
      await pipeline.stop();
      await parts.bus.close();
    },
  };
}
