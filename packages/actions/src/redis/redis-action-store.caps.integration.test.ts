import Redis from 'ioredis';
import { deletePrefix, drainLog, randomActionPrefix } from '@evp/testkit';
import { ManualClock } from '../clock';
import { NEVER_EXPIRES, type ActionCaps, type NewAction } from '../model';
import type { ActionStore } from '../store';
import { RedisActionStore } from './redis-action-store';

/**
 * Frequency caps under concurrency: two store instances (two connections, as two replicas) create
 * many capped actions for one user at the same moment; a cap of 1 must let exactly one through.
 */
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const T0 = Date.UTC(2030, 0, 1);
const CONCURRENT = 200;

const action = (inv: number, caps: ActionCaps): NewAction => ({
  user_id: 'user-1',
  type: 'message',
  render_method: 'in_app_message',
  delivery_mode: 'one-off',
  content: { title: 't', body: 'b' },
  attr: {},
  tags: [],
  expired_at: NEVER_EXPIRES,
  inv_id: inv,
  action_id: 1,
  caps,
});

describe('RedisActionStore frequency caps across two instances', () => {
  const connections: Redis[] = [];
  let prefix: string;
  let stores: ActionStore[];

  beforeAll(() => {
    for (let i = 0; i < 2; i++) connections.push(new Redis(url, { maxRetriesPerRequest: 2 }));
  });
  beforeEach(() => {
    prefix = randomActionPrefix();
    const clock = new ManualClock(T0);
    stores = connections.map((redis) => new RedisActionStore({ redis, clock, prefix }));
  });
  afterEach(async () => {
    await deletePrefix(connections[0] as Redis, prefix);
  });
  afterAll(async () => {
    await Promise.all(connections.map((c) => c.quit()));
  });

  /** CONCURRENT creates, alternating between the instances, all in flight at once; the statuses by inv_id. */
  async function race(caps: (i: number) => ActionCaps): Promise<string[]> {
    const results = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, i) => (stores[i % 2] as ActionStore).create('app-caps', [action(i + 1, caps(i))])),
    );
    return results.map(([r]) => (r?.reason ? `${r.status}:${r.reason}` : String(r?.status)));
  }

  it('lets exactly one action through a campaign cap of 1; the rest are capped and logged as such', async () => {
    const statuses = await race(() => ({ campaign: { key: 'campaign-1', max: 1, within_ms: 3_600_000 } }));
    expect(statuses.filter((s) => s === 'created')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'capped:campaign_cap')).toHaveLength(CONCURRENT - 1);
    const pulled = await (stores[1] as ActionStore).pull('app-caps', {
      user_id: 'user-1',
      type: 'message',
      render_method: 'in_app_message',
      delivery_mode: 'one-off',
    });
    expect(pulled.data.map((r) => r.payload.internal.inv_id)).toEqual([statuses.indexOf('created') + 1]);
    const log = await drainLog(stores[0] as ActionStore);
    expect(['created', 'capped', 'delivered'].map((k) => log.filter((e) => e.kind === k).length)).toEqual([1, CONCURRENT - 1, 1]);
  }, 60_000);

  it('lets exactly one action through an app cap of 1 across two campaigns', async () => {
    const statuses = await race((i) => ({ campaign: { key: `campaign-${i % 2}`, max: 5, within_ms: 3_600_000 }, app: { max: 1 } }));
    expect(statuses.filter((s) => s === 'created')).toHaveLength(1);
    // Each campaign's own cap of 5 is never reached: only one action of either was created.
    expect(statuses.filter((s) => s === 'capped:app_cap')).toHaveLength(CONCURRENT - 1);
  }, 60_000);
});
