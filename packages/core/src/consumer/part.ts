import type { Logger } from '../logger';
import { withDefaults, type Options } from '../options';
import type { Bus } from '../ports/bus';
import { timerClock, type TimerClock } from './clock';
import { createConsumerLifecycle, type ConsumerLifecycle } from './lifecycle';

/** What every consuming part is given, whatever else it needs. */
export interface ConsumerDeps<C> {
  bus: Bus;
  logger: Logger;
  /** Each option's meaning and default: the part's options table (docs/configuration.md). */
  config?: Partial<C>;
  /** The instant of the part's work and dead letters (injected in tests). Default: the clock's, else Date.now. */
  now?: () => number;
  /** The clock its timers run on (a test's ManualClock). Default: the process's timers on `now`. */
  clock?: TimerClock;
  /** Called once if one of the part's consumers stops for good (see Subscription). */
  onDead?: (error: Error) => void;
}

/** A part's settings over its defaults, its clock and its lifecycle, from what it was given. */
export function consumerPart<C>(name: string, options: Options<C>, deps: ConsumerDeps<C>): { config: C; now: () => number; life: ConsumerLifecycle } {
  const { clock } = deps;
  const now = deps.now ?? (clock ? () => clock.now() : Date.now);
  const life = createConsumerLifecycle({
    name,
    bus: deps.bus,
    logger: deps.logger,
    clock: clock ?? timerClock(now),
    ...(deps.onDead ? { onDead: deps.onDead } : {}),
  });
  return { config: withDefaults(options, deps.config), now, life };
}
