/**
 * What the action store's Lua costs inside Redis, this checkout against a git revision: the same
 * pulls through both versions of the Redis adapter, alternating call by call in one process, on a
 * redis-server of its own (no other client, so SLOWLOG with a 0 µs threshold holds exactly these
 * calls and each call's execution time). Answers "did this change make pulls dearer for Redis" at
 * a resolution of a few per cent where the latency bench (run.ts) on a shared, busy machine cannot.
 * A third variant runs the base code again on its own data: how far two identical variants differ
 * here is the noise floor of the run. Each cell also gives the median time of the whole call as the
 * caller sees it (round trip and JSON parse included), measured around the same calls.
 *
 *   npx tsx bench/action-pull/script-cost.ts --base <git-rev> [--reps 3000]
 *
 * The base revision's `redis/lua.ts` and `redis/redis-action-store.ts` are copied from git into
 * .local/bench/ (their relative imports pointed at @evp/actions), so the base must share this
 * checkout's exports for what the adapter imports (records, model, time, clock, store).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import Redis from 'ioredis';
import { NEVER_EXPIRES, RedisActionStore, systemClock, type ActionStore, type NewAction, type PullQuery } from '@evp/actions';
import { freePort, portOpen, requireProgram } from '@evp/testkit';
import { option } from '../options';

const BASE = option('base');
const REPS = Number(option('reps') ?? 3000);
if (!BASE) throw new Error('usage: script-cost.ts --base <git-rev> [--reps 3000]');
const root = resolve(__dirname, '../..');

/** The base revision's Redis adapter as a module of its own. */
async function baseAdapter(rev: string): Promise<typeof RedisActionStore> {
  const sha = execFileSync(requireProgram('git'), ['rev-parse', '--short', rev], { cwd: root, encoding: 'utf8' }).trim();
  const dir = join(root, '.local/bench', `script-cost-${sha}`);
  mkdirSync(dir, { recursive: true });
  for (const file of ['lua.ts', 'redis-action-store.ts']) {
    const text = execFileSync(requireProgram('git'), ['show', `${sha}:packages/actions/src/redis/${file}`], { cwd: root, encoding: 'utf8' });
    writeFileSync(join(dir, file), text.replace(/from '\.\.\/[\w-]+'/g, "from '@evp/actions'"));
  }
  return ((await import(join(dir, 'redis-action-store.ts'))) as { RedisActionStore: typeof RedisActionStore }).RedisActionStore;
}

/** Resolves once the port accepts connections (redis-server takes a moment to listen). */
async function listening(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await portOpen(port)) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const action = (user: string, i: number, mode: 'one-off' | 'cached', inv = 1): NewAction => ({
  user_id: user,
  type: 'message',
  render_method: 'in_app_message',
  delivery_mode: mode,
  content: { title: `Title ${i}`, body: `Body of action ${i}, long enough to look like a real message.` },
  attr: { screen: 'home' },
  tags: ['bench'],
  expired_at: NEVER_EXPIRES,
  inv_id: inv,
  action_id: i,
});

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function main() {
  const Base = await baseAdapter(BASE as string);
  const port = await freePort();
  const server = spawn(requireProgram('redis-server'), ['--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const redis = new Redis({ port, lazyConnect: true });
  try {
    await listening(port);
    await redis.connect();
    const clock = systemClock();
    const variants: [string, ActionStore][] = [
      [`base (${BASE})`, new Base({ redis, clock })],
      ['this checkout', new RedisActionStore({ redis, clock })],
      [`base again (noise floor)`, new Base({ redis, clock })],
    ];
    const USERS = 2000;
    const single = (n: number): PullQuery => ({ user_id: `user-${n % USERS}`, type: 'message', render_method: 'in_app_message', delivery_mode: 'cached' });
    // Each variant gets apps of its own, seeded by itself, and pulls every cached action once first
    // (a first delivery is a write; the steady state is what is measured).
    for (const [v, [, store]] of variants.entries()) {
      for (let u = 0; u < USERS; u += 300) {
        const batch: NewAction[] = [];
        for (let k = u; k < Math.min(USERS, u + 300); k++) for (let i = 0; i < 3; i++) batch.push(action(`user-${k}`, i, 'cached'));
        await store.create(`su-${v}`, batch);
      }
      await store.create(
        `star-${v}`,
        Array.from({ length: 1000 }, (_, i) => action(`s-${i % 100}`, i, 'cached')),
      );
      for (let n = 0; n < USERS; n++) await store.pull(`su-${v}`, single(n));
      await store.pull(`star-${v}`, { ...single(0), user_id: '*' });
    }
    await redis.config('SET', 'slowlog-log-slower-than', '0');
    await redis.config('SET', 'slowlog-max-len', '16');
    const lastCallMicros = async () => {
      const [entry] = (await redis.slowlog('GET', 1)) as [number, number, number, string[]][];
      if (!entry || String(entry[3][0]).toLowerCase() !== 'evalsha') throw new Error(`unexpected SLOWLOG entry ${JSON.stringify(entry?.[3]?.slice(0, 1))}`);
      return entry[2];
    };
    /** Every variant once per round, the order rotating, so drift in the machine's load hits all alike. */
    async function measure(name: string, rounds: number, op: (store: ActionStore, v: number, round: number) => Promise<unknown>, setup?: typeof op) {
      const micros: number[][] = variants.map(() => []);
      const calls: number[][] = variants.map(() => []);
      for (let round = 0; round < rounds; round++) {
        for (let k = 0; k < variants.length; k++) {
          const v = (round + k) % variants.length;
          const store = (variants[v] as [string, ActionStore])[1];
          await setup?.(store, v, round);
          const t = performance.now();
          await op(store, v, round);
          (calls[v] as number[]).push((performance.now() - t) * 1000);
          (micros[v] as number[]).push(await lastCallMicros());
        }
      }
      const [base, baseCall] = [median(micros[0] as number[]), median(calls[0] as number[])];
      const cell = (v: number) => {
        const [m, c] = [median(micros[v] as number[]), median(calls[v] as number[])];
        return `${m} µs (${(m / base).toFixed(2)}×) · ${c.toFixed(0)} µs (${(c / baseCall).toFixed(2)}×)`;
      };
      console.log(`| ${name} | ${variants.map((_, v) => cell(v)).join(' | ')} |`);
    }
    console.log(
      `Load average at start: ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' / ')}. Per cell: median Redis execution time of the pull script · median time of the whole pull call.\n`,
    );
    console.log(`| scenario | ${variants.map(([n]) => n).join(' | ')} |`);
    console.log(`|---|${variants.map(() => '---:').join('|')}|`);
    await measure('single-user cached pull (3 entries)', REPS, (store, v, i) => store.pull(`su-${v}`, single(i)));
    await measure('`*` cached pull of 1,000', Math.ceil(REPS / 30), (store, v) => store.pull(`star-${v}`, { ...single(0), user_id: '*' }));
    await measure(
      'single-user one-off pull (1 entry)',
      REPS,
      (store, v, i) => store.pull(`oo-${v}`, { user_id: `oo-${i}`, type: 'message', render_method: 'in_app_message', delivery_mode: 'one-off' }),
      async (store, v, i) => {
        if (i % 1000 === 0)
          await store.create(
            `oo-${v}`,
            Array.from({ length: 1000 }, (_, k) => action(`oo-${i + k}`, 100, 'one-off')),
          );
      },
    );
    await measure(
      '`*` one-off pull of 1,000',
      Math.ceil(REPS / 75),
      (store, v) => store.pull(`star1-${v}`, { ...single(0), user_id: '*', delivery_mode: 'one-off' }),
      (store, v, round) =>
        store.create(
          `star1-${v}`,
          Array.from({ length: 1000 }, (_, k) => action(`s-${k % 100}`, k, 'one-off', 10 + round)),
        ),
    );
  } finally {
    redis.disconnect();
    server.kill('SIGTERM');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
