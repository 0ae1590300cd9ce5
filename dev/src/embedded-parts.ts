import { systemClock, type Clock } from '@evp/actions';
import type { Logger } from '@evp/core';
import { InMemoryActionStore, createChdbAnalytics, createInProcessBus, createInProcessRegistry } from '@evp/embedded';
import type { PipelineParts } from './pipeline';

/** The four ports on their embedded adapters: one process, no infrastructure. */
export function createEmbeddedParts(opts: { chdbPath: string; database?: string; clock?: Clock; logger?: Logger }): PipelineParts {
  return {
    bus: createInProcessBus({ logger: opts.logger }),
    registry: createInProcessRegistry(),
    analytics: createChdbAnalytics({ path: opts.chdbPath, database: opts.database ?? 'analytics' }),
    store: new InMemoryActionStore({ clock: opts.clock ?? systemClock() }),
  };
}
