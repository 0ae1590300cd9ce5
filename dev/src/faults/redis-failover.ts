import { join, resolve } from 'node:path';
import Redis from 'ioredis';
import { RedisGroup, waitFor } from '@evp/testkit';
import { KEYS, type Harness } from './harness';
import { startChild, waitHttpOk, type Child } from './processes';

/**
 * Scenario i: one-off actions pulled by 2 action stores × 50 concurrent pullers through Sentinel
 * while the Redis primary is killed (-9) and its replica promoted. Run twice in one go: without the
 * replica wait, then with `REDIS_WAIT_REPLICAS=1`; each on a fresh group and 5,000 fresh actions.
 */
const ROOT = resolve(__dirname, '../../..');
const MASTER = 'evp-actions';
export const ACTIONS = 5_000;
const STORES = 2;
const PULLERS_PER_STORE = 50;
/** Few per pull, so the 5,000 take long enough for the kill to land mid-stream. */
const PULL_MAX = 5;
/** The most a kill can lose: every puller's pull in flight, its answer gone with the primary. */
export const IN_FLIGHT_BOUND = STORES * PULLERS_PER_STORE * PULL_MAX;
/** Delivered before the kill: the primary dies with pulls in flight. */
const KILL_AFTER = 1_500;
/** Pullers stop this long after the kill whatever happens: what is not delivered by then is lost. */
const GIVE_UP_MS = 90_000;

export interface FailoverRun {
  wait: boolean;
  created: number;
  /** Pull answers carrying actions, and all deliveries in them (with repeats). */
  deliveries: number;
  distinct: number;
  duplicates: number;
  /** Created (stored: created or, on a repeated batch, duplicate) and never delivered once pulls ran dry. */
  lost: number;
  /** kill -9 → a sentinel announces the replica as primary (+switch-master). */
  promotedMs: number;
  /** kill -9 → both stores answer pulls again; undefined: one never did (within GIVE_UP_MS). */
  failoverMs: number | undefined;
  /** Pull answers other than 200 (503 while no primary is reachable), and those of them that never came (30 s). */
  refused: number;
  abandoned: number;
}

interface Store {
  child: Child;
  url: string;
}

async function post(url: string, path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${KEYS.api}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function startStore(h: Harness, i: number, group: RedisGroup, port: number, wait: boolean): Store {
  const env = { ...h.inheritedEnv };
  // HTTP only: the scenario is about Redis; no broker is needed (or started).
  delete env.KAFKA_BROKERS;
  delete env.REDIS_URL;
  Object.assign(env, {
    PORT: String(port),
    KEYS_FILE: h.keysFile,
    LOG_LEVEL: 'warn',
    PULL_MAX: String(PULL_MAX),
    REDIS_SENTINELS: group.sentinels.map((s) => `${s.host}:${s.port}`).join(','),
    REDIS_MASTER_NAME: MASTER,
    REDIS_WAIT_REPLICAS: wait ? '1' : '0',
    REDIS_WAIT_TIMEOUT_MS: '200',
  });
  const name = `action-store-${wait ? 'wait' : 'nowait'}-${i}`;
  const child = startChild(name, process.execPath, ['--import', 'tsx', join(ROOT, 'services/action-store/src/main.ts')], {
    env,
    logFile: join(h.dir, `logs/${name}.log`),
    cwd: ROOT,
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

export async function failoverRun(h: Harness, opts: { wait: boolean; tag: string; redisBasePort: number; storeBasePort: number }): Promise<FailoverRun> {
  const b = opts.redisBasePort;
  const group = await RedisGroup.start({
    dir: join(h.dir, `redis-group-${opts.tag}`),
    masterName: MASTER,
    ports: { primary: b, replica: b + 1, sentinels: [b + 2, b + 3, b + 4] },
    launch: (name, cmd, args, cwd) => {
      const c = startChild(`${opts.tag}-${name}`, cmd, args, { env: h.inheritedEnv, logFile: join(h.dir, `logs/${opts.tag}-${name}.log`), cwd });
      return { kill9: () => c.kill9(), stop: () => c.terminate(10_000).then(() => undefined) };
    },
  });
  const stores = Array.from({ length: STORES }, (_, i) => startStore(h, i, group, opts.storeBasePort + i, opts.wait));
  try {
    await Promise.all(stores.map((s) => waitHttpOk(`${s.url}/healthz`, 90_000)));
    const attr = { screen: opts.tag };
    let created = 0;
    for (let at = 0; at < ACTIONS; at += 1000) {
      const batch = Array.from({ length: Math.min(1000, ACTIONS - at) }, (_, k) => ({
        user_id: `u${(at + k) % 100}`,
        type: 'message',
        render_method: 'push_notification',
        delivery_mode: 'one-off',
        content: { title: `t${at + k}`, body: 'b' },
        attr,
        expired_at: '2999-01-01T00:00:00Z',
        inv_id: 1,
        action_id: at + k + 1,
      }));
      // A 503 (with WAIT: the replica did not confirm in time) is repeated: creates are idempotent, a
      // repeat answers `duplicate` for what the first attempt stored.
      const r = await waitFor(
        async () => {
          const res = await post(stores[0]!.url, '/v1/actions', { actions: batch });
          return res.status === 200 ? res : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 100, what: 'a create batch to be answered 200' },
      );
      const counts = r.body.counts as { created?: number; duplicate?: number };
      created += (counts.created ?? 0) + (counts.duplicate ?? 0);
    }
    await replicated(group);

    const delivered: string[] = [];
    let refused = 0;
    let abandoned = 0;
    let killedAt = 0;
    let promoted = false;
    const backAt = new Map<number, number>();
    const puller = async (storeIndex: number) => {
      const store = stores[storeIndex] as Store;
      for (;;) {
        const sentAt = Date.now();
        const r = await post(store.url, '/v1/action/pull', {
          user_id: '*',
          type: 'message',
          render_method: 'push_notification',
          delivery_mode: 'one-off',
          attr,
        }).catch((): Awaited<ReturnType<typeof post>> => ({ status: 0, body: {} }));
        if (killedAt && Date.now() > killedAt + GIVE_UP_MS) return;
        if (r.status === 0) abandoned++;
        if (r.status !== 200) {
          refused++;
          await new Promise((ok) => setTimeout(ok, 50));
          continue;
        }
        // Back: a pull sent after the kill answered (an earlier one may still be on its way back).
        if (killedAt && sentAt > killedAt && !backAt.has(storeIndex)) backAt.set(storeIndex, Date.now());
        const data = r.body.data as { user_id: string; payload: { internal: { action_id: number } } }[];
        for (const a of data) delivered.push(`${a.user_id}/${a.payload.internal.action_id}`);
        // Dry only counts once the new primary serves: before the kill there is always more.
        if (data.length === 0 && promoted) return;
        if (data.length === 0) await new Promise((ok) => setTimeout(ok, 50));
      }
    };
    const pulling = stores.flatMap((_, i) => Array.from({ length: PULLERS_PER_STORE }, () => puller(i)));
    await waitFor(() => delivered.length >= KILL_AFTER, { timeoutMs: 120_000, intervalMs: 5, what: `${KILL_AFTER} deliveries before the kill` });
    const switched = group.switchMaster(90_000);
    const old = await group.killPrimary();
    killedAt = Date.now();
    const promotedMs = (await switched) - killedAt;
    await group.awaitNewPrimary(old, 60_000);
    promoted = true;
    await Promise.all(pulling);
    const distinct = new Set(delivered).size;
    return {
      wait: opts.wait,
      created,
      deliveries: delivered.length,
      distinct,
      duplicates: delivered.length - distinct,
      lost: created - distinct,
      promotedMs,
      failoverMs: backAt.size === STORES ? Math.max(...[...backAt.values()].map((t) => t - killedAt)) : undefined,
      refused,
      abandoned,
    };
  } finally {
    await Promise.allSettled(stores.map((s) => s.child.terminate(20_000)));
    await group.stop();
  }
}

/** Every create on the replica before the pulls start: a write of our own, then WAIT for it (and so for all before it). */
async function replicated(group: RedisGroup): Promise<void> {
  const r = new Redis({ port: await group.primaryPort(), lazyConnect: true });
  try {
    await r.connect();
    await r.incr('faults:replicated-probe');
    const n = await r.wait(1, 10_000);
    if (n < 1) throw new Error('the replica did not confirm the creates within 10 s');
  } finally {
    r.disconnect();
  }
}
