import { KeyRing, createLogger, type Analytics } from '@evp/core';
import { createEmbeddedParts } from '../embedded-parts';
import { startPipeline, type RunningPipeline } from '../pipeline';
import { API_KEY, OTHER_API_KEY, SDK_KEY } from '../testing/scenario';
import { ENFORCED_APP, ENFORCED_SDK_KEY, fuzzUserTokens } from './tokens';
import type { FuzzOptions } from './run';

/** The embedded pipeline (in-process bus, chdb in memory) with its two HTTP services on loopback. */
export async function startPipelineUnderFuzz(
  database: string,
): Promise<{ pipeline: RunningPipeline; analytics: Analytics; targets: FuzzOptions['targets']; keys: FuzzOptions['keys']; stop(): Promise<void> }> {
  const parts = createEmbeddedParts({ chdbPath: ':memory:', database });
  // The e2e app (tokens off) and an app that enforces user tokens, so hostile tokens are verified.
  const userTokens = await fuzzUserTokens();
  const keys = new KeyRing({
    keys: [
      { id: 'e2e-sdk', app_id: 'e2e-app', role: 'sdk', key: SDK_KEY },
      { id: 'e2e-api', app_id: 'e2e-app', role: 'api', key: API_KEY },
      { id: 'other-api', app_id: 'other-app', role: 'api', key: OTHER_API_KEY },
      ...userTokens.keys,
    ],
    apps: { [ENFORCED_APP]: { user_tokens: 'enforce' } },
  });
  const pipeline = await startPipeline({ parts, keys, logger: createLogger('fuzz', 'silent'), sinkFlushMs: 50 });
  const at = (url: string) => ({ host: new URL(url).hostname, port: Number(new URL(url).port) });
  return {
    pipeline,
    analytics: parts.analytics,
    targets: { gateway: at(pipeline.gatewayUrl), actions: at(pipeline.actionsUrl) },
    keys: { sdk: SDK_KEY, api: API_KEY, enforcedSdk: ENFORCED_SDK_KEY, userTokens: userTokens.tokens },
    async stop() {
      await pipeline.stop();
      await parts.bus.close();
    },
  };
}
