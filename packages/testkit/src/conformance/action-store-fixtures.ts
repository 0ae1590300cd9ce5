import { ManualClock, NEVER_EXPIRES, type ActionRecord, type ActionStore, type NewAction, type PullQuery } from '@evp/actions';

/** What the ActionStore conformance suites (action-store.ts, action-store-log.ts) share. */
export interface ActionStoreUnderTest {
  store: ActionStore;
  /** Removes whatever the store left behind (e.g. the Redis keys under a test prefix). */
  cleanup?: () => Promise<void>;
}

export interface ActionStoreTestOptions {
  /** Entries one pull may examine before returning `more` with a cursor. */
  scanBudget?: number;
  /** How long a read action log record stays with its reader. */
  logLeaseMs?: number;
}

export type MakeActionStore = (clock: ManualClock, opts: ActionStoreTestOptions) => Promise<ActionStoreUnderTest>;

/** 2030-01-01T00:00:00Z: fixed, so timestamps in assertions are literal. */
export const T0 = Date.UTC(2030, 0, 1);

/**
 * Registers, in the calling describe block, a fresh store on a manual clock at T0 before each test
 * (handed to `use`) and its close and cleanup after it. `remake` swaps the test's store for one made
 * with other options on the same clock (handed to `use` again).
 */
export function freshStoreEachTest(
  makeStore: MakeActionStore,
  use: (s: { store: ActionStore; clock: ManualClock }) => void,
): { remake(opts: ActionStoreTestOptions): Promise<void> } {
  let clock = new ManualClock(T0);
  let made: ActionStoreUnderTest | undefined;
  const close = async () => {
    await made?.store.close();
    await made?.cleanup?.();
  };
  const make = async (opts: ActionStoreTestOptions) => {
    made = await makeStore(clock, opts);
    use({ store: made.store, clock });
  };
  beforeEach(async () => {
    clock = new ManualClock(T0);
    await make({});
  });
  afterEach(close);
  return {
    async remake(opts) {
      await close();
      await make(opts);
    },
  };
}
export const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** A valid action; tests override what they look at. */
export function sampleAction(overrides: Partial<NewAction> = {}): NewAction {
  return {
    user_id: 'u1',
    type: 'message',
    render_method: 'push_notification',
    delivery_mode: 'one-off',
    content: { title: 'Hello', body: 'World' },
    attr: {},
    tags: [],
    expired_at: NEVER_EXPIRES,
    ...overrides,
  };
}

export const q = (overrides: Partial<PullQuery> = {}): PullQuery => ({
  user_id: '*',
  type: 'message',
  render_method: 'push_notification',
  delivery_mode: 'one-off',
  ...overrides,
});

/** `<user>/<inv>:<action>` of each entry, in order: compact enough to assert exact sequences. */
export const ids = (data: ActionRecord[]) => data.map((r) => `${r.user_id}/${r.payload.internal.ref}`);
