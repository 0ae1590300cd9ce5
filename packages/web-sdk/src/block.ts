import { evp } from './instance';
import type { EventNamesByBlock, EventPropsByName } from './generated/events';

export type BlockTracker<B extends keyof EventNamesByBlock> = {
  [N in EventNamesByBlock[B]]: (props: EventPropsByName[N], meta?: unknown) => Promise<void>;
};

/** A block's events as methods (`eCommerce.cart({...})`): one tiny proxy, the types do the rest. */
export function blockTracker<B extends keyof EventNamesByBlock>(): BlockTracker<B> {
  return new Proxy({} as BlockTracker<B>, {
    get: (_, name) => (props: never, meta?: unknown) => evp.track(String(name) as never, props, meta),
  });
}
