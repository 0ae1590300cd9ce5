import type { Logger } from '../logger';
import { withDefaults, type Options } from '../options';
import type { Bus } from '../ports/bus';
import { timerClock } from './clock';
import { createConsumerLifecycle, type ConsumerLifecycle } from './lifecycle';

/** What every consuming part is given, whatever else it needs. */
export interface ConsumerDeps<C> {
  bus: Bus;
  logger: Logger;
  /** Each option's meaning and default: the part's options table (docs/configuration.md). */
  config?: Partial<C>;
  /** The instant of the part's work, dead letters and timers (injected in tests). Default Date.now. */
  now?: () => number;
  /** Called once if one of the part's consumers stops for good (see Subscription). */
  onDead?: (error: Error) => void;
}

/** A part's settings over its defaults, its clock and its lifecycle, from what it was given. */
export function consumerPart<C>(name: string, options: Options<C>, deps: ConsumerDeps<C>): { config: C; now: () => number; life: ConsumerLifecycle } {
  const now = deps.now ?? Date.now;
  const life = createConsumerLifecycle({
    name,
    bus: deps.bus,
    logger: deps.logger,
    clock: timerClock(now),
    ...(deps.onDead ? { onDead: deps.onDead } : {}),
  });
  return { config: withDefaults(options, deps.config), now, life };
}
