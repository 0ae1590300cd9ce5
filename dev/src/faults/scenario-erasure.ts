import type { ErasureRequest } from '@evp/segmenter';
import { waitFor } from '@evp/testkit';
import { awaitAllStored } from './counts';
import { KEYS, type Harness } from './harness';
import { emptyTally, record, sendUpload, uploadFactory } from './load';
import { SETTLE_MS, verdict, type Scenario } from './scenario-kit';

/** The erasure's keyed-hash key on the segmenter for this scenario (at least 32 characters). */
const HASH_KEY = 'faults-privacy-hash-key-0123456789abcdef';
/** How long the processor waits after each table's delete: the window the kill lands in. */
const PAUSE_MS = 20_000;
const EVENTS = 20;

type Call = { status: number; body: Record<string, unknown> };

async function call(url: string, method: string, body?: unknown): Promise<Call> {
  const res = await fetch(url, {
    method,
    headers: { Authorization: `Bearer ${KEYS.api}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
}

const ACTION = { type: 'message', render_method: 'push_notification', delivery_mode: 'one-off' } as const;

/** One live action for `user` in the action store's Redis, through its route. */
async function createAction(h: Harness, user: string, actionId: number) {
  const action = {
    ...ACTION,
    user_id: user,
    content: { title: 't', body: 'b' },
    attr: { screen: user },
    expired_at: '2999-01-01T00:00:00Z',
    inv_id: 1,
    action_id: actionId,
  };
  const r = await call(`${h.actionsUrl}/v1/actions`, 'POST', { actions: [action] });
  const created = (r.body.counts as { created?: number } | undefined)?.created;
  if (r.status !== 200 || created !== 1) throw new Error(`creating an action for ${user}: ${r.status} ${JSON.stringify(r.body)}`);
}

/** How many actions a pull for `user` delivers (undefined: the pull failed). */
async function pull(h: Harness, user: string): Promise<number | undefined> {
  const r = await call(`${h.actionsUrl}/v1/action/pull`, 'POST', { ...ACTION, user_id: user, attr: { screen: user } });
  return r.status === 200 ? (r.body.data as unknown[]).length : undefined;
}

/**
 * Scenario l (issue #40): the segmenter process killed with SIGKILL while an erasure request is in
 * `deleting`, between one table's delete and the next (FAULT_ERASURE_PAUSE_MS holds it there),
 * restarted without the pause; the stored state makes the new process resume the request, which
 * must end `completed` with every store's after-count 0, the other user's events all stored.
 */
export const erasureScenario: Scenario = {
  id: 'l',
  title: 'segmenter kill -9 while an erasure is deleting; resumed after restart',
  short: true,
  async run(h, { tag }) {
    const privacyEnv = { PRIVACY_HASH_KEY: HASH_KEY, REDIS_URL: h.redisUrl };
    const failures: string[] = [];
    const notes: string[] = [];
    const erasedUpload = uploadFactory(`${tag}-erased`, 1, { users: 1 })(EVENTS);
    const keptUpload = uploadFactory(`${tag}-kept`, 2, { users: 1 })(EVENTS);
    const erasedUser = `${tag}-erased-u0`;
    const keptUser = `${tag}-kept-u0`;
    h.overrides.sink = { ...privacyEnv, FAULT_ERASURE_PAUSE_MS: String(PAUSE_MS) };
    try {
      await h.kill9('sink');
      await h.startService('sink');
      // Seeded through the platform's routes: events through the gateway, an action each in Redis.
      const erased = emptyTally();
      const kept = emptyTally();
      record(erased, erasedUpload, await sendUpload(h.gatewayUrl, KEYS.sdk, erasedUpload.body));
      record(kept, keptUpload, await sendUpload(h.gatewayUrl, KEYS.sdk, keptUpload.body));
      const seeded = await awaitAllStored((sql, p) => h.query(sql, p), erased, [`${tag}-erased`], { timeoutMs: SETTLE_MS, since: Date.now() });
      if (seeded.counts.stored !== EVENTS) failures.push(`the erased user's events stored before the erasure: ${seeded.counts.stored} of ${EVENTS}`);
      await createAction(h, erasedUser, 1);
      await createAction(h, keptUser, 2);

      const created = await call(`${h.segmenterUrl}/v1/privacy/erasures`, 'POST', { user_ids: [erasedUser] });
      if (created.status !== 202) throw new Error(`erasure request: ${created.status} ${JSON.stringify(created.body)}`);
      const id = created.body.id as string;
      const get = async () => (await call(`${h.segmenterUrl}/v1/privacy/erasures/${id}`, 'GET')).body as unknown as ErasureRequest;
      const eventsOf = async (user: string) =>
        Number((await h.query<{ n: string }>('SELECT toString(count()) AS n FROM events WHERE user_id = {u:String}', { u: user }))[0]?.n ?? 0);
      // Killed once the first table's delete has landed and the processor waits before the next:
      // the request is in `deleting`, some tables done, others not.
      await waitFor(async () => (await get()).state === 'deleting' && (await eventsOf(erasedUser)) === 0, {
        timeoutMs: 120_000,
        intervalMs: 100,
        what: 'the erasure in deleting with the events table done',
      });
      const before = await get();
      await h.kill9('sink');
      notes.push(`killed in ${before.state} (steps: ${before.steps.map((s) => s.state).join(' → ')})`);

      h.overrides.sink = privacyEnv;
      const restartedAt = Date.now();
      await h.startService('sink');
      let ended: ErasureRequest | undefined;
      await waitFor(
        async () => {
          ended = await get();
          return ended.state === 'completed' || ended.state === 'failed';
        },
        { timeoutMs: 180_000, intervalMs: 250, what: 'the resumed erasure to end' },
      );
      const r = ended as ErasureRequest;
      const resumedMs = Date.now() - restartedAt;
      if (r.state !== 'completed') failures.push(`ended ${r.state}: ${JSON.stringify(r.failure)}`);
      const nonZero = r.stores.filter((e) => e.after !== 0 || (e.after_physical ?? 0) !== 0 || (e.keys_after ?? 0) !== 0);
      if (nonZero.length > 0)
        failures.push(`after-counts not 0: ${nonZero.map((e) => `${e.store} ${e.after}/${e.after_physical}/${e.keys_after}`).join(', ')}`);
      if (!r.stores.some((e) => e.store === 'redis.actions')) failures.push('the action store was not among the stores');
      const held = r.stores.filter((e) => (e.before ?? 0) > 0).map((e) => `${e.store} ${e.before}→${e.after}`);
      notes.push(`resumed and ${r.state} ${resumedMs} ms after the restart; ${r.stores.length} stores, before → after: ${held.join(', ')}`);
      if ((await eventsOf(erasedUser)) !== 0) failures.push("the erased user's events are back");
      const erasedPulled = await pull(h, erasedUser);
      const keptPulled = await pull(h, keptUser);
      if (keptPulled !== 1) failures.push(`a pull of the other user's action delivered ${keptPulled}, not 1`);
      if (erasedPulled !== 0) failures.push(`a pull of the erased user's action delivered ${erasedPulled}, not 0`);
      notes.push(`pulls after: erased user ${erasedPulled}, other user ${keptPulled}`);
      const { counts } = await awaitAllStored((sql, p) => h.query(sql, p), kept, [`${tag}-kept`], { timeoutMs: SETTLE_MS, since: Date.now() });
      return verdict('l', this.title, counts, resumedMs, failures, notes);
    } finally {
      delete h.overrides.sink;
      await h.kill9('sink');
      await h.startService('sink');
    }
  },
};
