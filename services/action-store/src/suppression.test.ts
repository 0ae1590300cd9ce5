import request from 'supertest';
import { Registry } from 'prom-client';
import { KeyRing, createLogger, topics } from '@evp/core';
import { ManualClock, NEVER_EXPIRES, actionRequestMessage } from '@evp/actions';
import { InMemoryActionStore, createInProcessBus } from '@evp/embedded';
import { suppressedOn, waitFor } from '@evp/testkit';
import { createActionStoreApp } from './app';
import { startActionRequestsConsumer } from './consumers/action-requests';

const API = 'api-key-supp-0123456789';
const keys = new KeyRing({ keys: [{ id: 'k-api', app_id: 'app-1', role: 'api', key: API }] });
const hashKey = 'action-store-suppression-key-0123456789';
const logger = createLogger('test', 'silent');
const action = (user: string) => ({
  user_id: user,
  type: 'message' as const,
  render_method: 'push_notification' as const,
  delivery_mode: 'one-off' as const,
  content: { title: 'Hi', body: 'There' },
  expired_at: NEVER_EXPIRES,
});
const requested = (user: string, inv: number) => ({ ...action(user), attr: {}, tags: [], inv_id: inv, action_id: 1 });

async function suppressed() {
  const bus = createInProcessBus({ retryDelayMs: 5 });
  const suppressions = await suppressedOn(bus, hashKey, [{ appId: 'app-1', kind: 'user', id: 'u-gone' }]);
  const producer = await bus.producer();
  const store = new InMemoryActionStore({ clock: new ManualClock(Date.UTC(2030, 0, 1)) });
  return { bus, producer, suppressions, store };
}

const usersWithActions = async (store: InMemoryActionStore, users: string[]) => {
  const out: string[] = [];
  for (const u of users) {
    const r = await store.pull('app-1', { user_id: u, type: 'message', render_method: 'push_notification', delivery_mode: 'one-off' } as never);
    if (r.data.length > 0) out.push(u);
  }
  return out;
};

describe('action store: suppressed users', () => {
  it('POST /v1/actions naming a suppressed user answers 409 user_suppressed and creates nothing', async () => {
    const s = await suppressed();
    const { app } = createActionStoreApp({ store: s.store, keys, logger, suppressions: s.suppressions });
    const res = await request(app)
      .post('/v1/actions')
      .set('Authorization', `Bearer ${API}`)
      .send({ actions: [action('u-kept'), action('u-gone')] });
    expect([res.status, res.body.error.code, res.body.error.path, res.body.error.details]).toEqual([
      409,
      'user_suppressed',
      '$.actions[1].user_id',
      { indices: [1] },
    ]);
    expect(await usersWithActions(s.store, ['u-kept', 'u-gone'])).toEqual([]);
    const ok = await request(app)
      .post('/v1/actions')
      .set('Authorization', `Bearer ${API}`)
      .send({ actions: [action('u-kept')] });
    expect([ok.status, ok.body.counts.created]).toEqual([200, 1]);
    await s.suppressions.close();
    await s.bus.close();
  });

  it('leaves a suppressed user out of a requested batch, counted as status suppressed', async () => {
    const s = await suppressed();
    const metrics = new Registry();
    const sub = await startActionRequestsConsumer({ bus: s.bus, store: s.store, logger, metrics, suppressions: s.suppressions });
    await s.producer.send(topics.actionsRequested, [actionRequestMessage('app-1', [requested('u-gone', 1), requested('u-kept', 2)])]);
    const statuses = async () =>
      Object.fromEntries(((await metrics.getSingleMetric('action_store_requested_actions_total')?.get())?.values ?? []).map((v) => [v.labels.status, v.value]));
    await waitFor(async () => ((await statuses()).created === 1 ? true : undefined), { timeoutMs: 5000, what: 'the kept user’s action' });
    expect(await statuses()).toEqual({ created: 1, suppressed: 1 });
    expect(await usersWithActions(s.store, ['u-kept', 'u-gone'])).toEqual(['u-kept']);
    await sub.stop();
    await s.suppressions.close();
    await s.bus.close();
  });
});
