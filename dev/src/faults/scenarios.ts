import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { KeyRing, createLogger } from '@evp/core';
import { waitFor } from '@evp/testkit';
import { createEmbeddedParts } from '../embedded-parts';
import { startPipeline } from '../pipeline';
import { clusterScenario } from './cluster-scenario';
import { erasureScenario } from './scenario-erasure';
import { awaitAllStored } from './counts';
import { feedbackLoad, feedbackVerdict } from './feedback-load';
import { KEYS, type Harness, type ServiceName } from './harness';
import { emptyTally, record, sendUpload, startLoad, uploadFactory } from './load';
import { replicasScenario } from './scenario-replicas';
import { RATE, SETTLE_MS, pause, underLoad, verdict, type Scenario } from './scenario-kit';
import { ACTIONS, IN_FLIGHT_BOUND, failoverRun, type FailoverRun } from './redis-failover';

export type { ScenarioResult } from './scenario-kit';

async function restartKilled(h: Harness, name: ServiceName) {
  await h.kill9(name);
  await h.startService(name);
}

/** Kills the validator right after its output for a just-acknowledged upload reached ClickHouse: before it can have committed. */
async function killValidatorAfterOutput(h: Harness, tag: string): Promise<string> {
  const next = uploadFactory(`${tag}-probe`, 1);
  const probe = next(50);
  const r = await sendUpload(h.gatewayUrl, KEYS.sdk, probe.body);
  if (!r.requestId) throw new Error(`probe upload not acknowledged (${r.status})`);
  // No output within the deadline is itself a finding (a validator that stopped consuming): the
  // kill goes ahead and the counts show what was lost.
  const seen = await waitFor(async () => (await h.query('SELECT 1 FROM events WHERE request_id = {r:String} LIMIT 1', { r: r.requestId })).length > 0, {
    timeoutMs: 60_000,
    intervalMs: 20,
    what: 'the probe upload in ClickHouse',
  }).catch(() => false);
  await h.kill9('validator');
  await h.startService('validator');
  return seen ? 'second kill right after output appeared' : 'second kill: the validator produced no output for 60 s before it';
}

export const scenarios: Scenario[] = [
  {
    id: 'a',
    title: 'broker kill -9 and restart, with nudge responses flowing to the action store (actions.feedback)',
    short: false,
    async run(h, { short, tag }) {
      const feedback = await feedbackLoad(h, tag);
      const { counts, recoveredMs, trace } = await underLoad(
        h,
        tag,
        { before: short ? 5_000 : 15_000, after: short ? 10_000 : 20_000 },
        async () => {
          await h.killBroker();
          await pause(5_000); // the broker stays away a while, with the gateway answering 503 meanwhile
          await h.restartBroker();
        },
        feedback.start,
      );
      const { note, failures } = feedbackVerdict(await feedback.settle());
      return verdict('a', this.title, counts, recoveredMs, failures, [note, ...trace.notes], trace.hops);
    },
  },
  {
    id: 'b',
    title: 'validator kill -9 mid-batch, and right after its output appears',
    short: true,
    async run(h, { short, tag }) {
      let note = '';
      const { counts, recoveredMs, trace } = await underLoad(h, tag, { before: short ? 5_000 : 15_000, after: short ? 10_000 : 20_000 }, async () => {
        await restartKilled(h, 'validator');
        await pause(5_000);
        note = await killValidatorAfterOutput(h, tag);
      });
      return verdict('b', this.title, counts, recoveredMs, [], [note, ...trace.notes], trace.hops);
    },
  },
  {
    id: 'c',
    title: 'sink kill -9; ClickHouse refusing 3 inserts and half-applying 2',
    short: true,
    async run(h, { short, tag }) {
      const { counts, recoveredMs, trace } = await underLoad(h, tag, { before: short ? 5_000 : 15_000, after: short ? 10_000 : 20_000 }, async () => {
        h.overrides.sink = { FAULT_REFUSE_INSERTS: '3', FAULT_HALF_INSERTS: '2' };
        try {
          await restartKilled(h, 'sink');
        } finally {
          delete h.overrides.sink;
        }
      });
      await restartKilled(h, 'sink'); // back without faults for the next scenarios
      return verdict('c', this.title, counts, recoveredMs, [], trace.notes, trace.hops);
    },
  },
  {
    id: 'd',
    title: 'gateway SIGTERM under load',
    short: true,
    async run(h, { short, tag }) {
      let exit: number | null | undefined;
      const { tally, counts, recoveredMs, trace } = await underLoad(h, tag, { before: short ? 5_000 : 15_000, after: short ? 5_000 : 15_000 }, async () => {
        exit = await h.terminate('gateway');
        await h.startService('gateway');
      });
      const refused = [...tally.refused.entries()].map(([s, n]) => `${n}× ${s || 'no answer'}`).join(', ') || 'none';
      return verdict(
        'd',
        this.title,
        counts,
        recoveredMs,
        exit === 0 ? [] : [`gateway exited with ${exit} on SIGTERM`],
        [`refused while stopping: ${refused}`, ...trace.notes],
        trace.hops,
      );
    },
  },
  {
    id: 'e',
    title: 'action store with Redis kill -9 (AOF, fsync always)',
    short: true,
    async run(h, { tag }) {
      const total = 200;
      const user = tag;
      const post = async (path: string, body: unknown) => {
        const res = await fetch(`${h.actionsUrl}${path}`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${KEYS.api}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(10_000),
        });
        return { status: res.status, body: await res.json() };
      };
      const actions = Array.from({ length: total }, (_, i) => ({
        user_id: `${user}-${i % 10}`,
        type: 'message',
        render_method: 'push_notification',
        delivery_mode: 'one-off',
        content: { title: `t${i}`, body: 'b' },
        attr: { screen: user },
        expired_at: '2999-01-01T00:00:00Z',
        inv_id: 1,
        action_id: i + 1,
      }));
      const created = await post('/v1/actions', { actions });
      const failures: string[] = [];
      if (created.status !== 200 || created.body.counts?.created !== total)
        failures.push(`create answered ${created.status} ${JSON.stringify(created.body.counts)}`);
      const delivered: string[] = [];
      const pull = async () => {
        const r = await post('/v1/action/pull', {
          user_id: '*',
          type: 'message',
          render_method: 'push_notification',
          delivery_mode: 'one-off',
          attr: { screen: user },
        });
        if (r.status !== 200) return undefined;
        for (const a of r.body.data as { user_id: string; payload: { internal: { action_id: number } } }[])
          delivered.push(`${a.user_id}/${a.payload.internal.action_id}`);
        return r.body.data.length as number;
      };
      await pull(); // one pull of PULL_MAX (50) before the kill
      await h.killRedis();
      await h.startRedis();
      const restarted = Date.now();
      // ioredis reconnects by itself; until then pulls answer 503 and deliver nothing.
      await waitFor(async () => (await pull()) === 0, { timeoutMs: 60_000, intervalMs: 200, what: 'pulls to run dry after the Redis restart' });
      const recoveredMs = Date.now() - restarted;
      const distinct = new Set(delivered).size;
      if (distinct !== delivered.length) failures.push(`${delivered.length - distinct} actions delivered twice`);
      if (distinct !== total) failures.push(`${total - distinct} actions never delivered`);
      const counts = {
        sent: total,
        acked: created.body.counts?.created ?? 0,
        stored: distinct,
        rejected: 0,
        lost: total - distinct,
        dup: delivered.length - distinct,
      };
      return { id: 'e', title: this.title, counts, recoveredMs, failures, notes: [`${delivered.length} deliveries of ${total} one-off actions`] };
    },
  },
  {
    id: 'f',
    title: 'maximal uploads (5,000 events; 2,700 events ≈ 470 KB) while another app keeps sending',
    short: true,
    async run(h, { tag }) {
      const other = `${tag}-other`;
      const load = startLoad({ gatewayUrl: h.gatewayUrl, key: KEYS.otherSdk, tag: other, seed: 11, rate: RATE });
      const big = emptyTally();
      const notes: string[] = [];
      await pause(3_000);
      for (const [size, pad] of [
        [5_000, 0],
        [2_700, 25],
      ] as const) {
        const upload = uploadFactory(`${tag}-${size}`, size, { pad })(size);
        const r = await sendUpload(h.gatewayUrl, KEYS.sdk, upload.body, 60_000);
        record(big, upload, r);
        notes.push(`${size} events, ${Math.round(upload.body.length / 1024)} KB: ${r.status}`);
      }
      const bigTags = [`${tag}-5000`, `${tag}-2700`];
      // Recovery here: how long until both maximal uploads are queryable, while the other app sends on.
      const bigStored = awaitAllStored((sql, p) => h.query(sql, p), big, bigTags, { timeoutMs: SETTLE_MS, since: Date.now() });
      await pause(10_000);
      const background = await load.stop();
      const tally = {
        ...big,
        acked: new Map([...big.acked, ...background.acked]),
        ackedAt: new Map([...big.ackedAt, ...background.ackedAt]),
        answers: [...big.answers, ...background.answers],
        sentEvents: big.sentEvents + background.sentEvents,
        ackedEvents: big.ackedEvents + background.ackedEvents,
      };
      const { counts } = await awaitAllStored((sql, p) => h.query(sql, p), tally, [...bigTags, other], { timeoutMs: SETTLE_MS, since: Date.now() });
      return verdict('f', this.title, counts, (await bigStored).recoveredMs, [], notes);
    },
  },
  {
    id: 'g',
    title: 'backlog: validator stopped for 60 s at 10 uploads/s, then restarted',
    short: false,
    async run(h, { short, tag }) {
      const { counts, recoveredMs, trace } = await underLoad(h, tag, { before: 3_000, after: 5_000 }, async () => {
        await h.terminate('validator');
        await pause(short ? 20_000 : 60_000);
        await h.startService('validator');
      });
      return verdict('g', this.title, counts, recoveredMs, [], trace.notes, trace.hops);
    },
  },
  {
    id: 'h',
    title: 'embedded pipeline (npm start) restarted 3× on one chdb directory, re-sending the same 11 rejected events',
    short: true,
    async run(h, { tag }) {
      const sends = 3;
      const perSend = 11;
      const dir = join(h.dir, 'embedded-chdb');
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const keys = new KeyRing({ keys: [{ id: 'h-sdk', app_id: 'h-app', role: 'sdk', key: KEYS.sdk }] });
      const user = tag;
      const body = JSON.stringify({
        id: user,
        tz: '+00:00',
        internal: { s_id: `${user}_1700000000000_0`, a_id: 'faults', sdk: 'android/2.4.1', a_ver: '1.2.3 (45)', d_id: 'd', os: 'android' },
        data: Array.from({ length: perSend }, (_, i) => ({
          time: '2024-03-01 00:00:00.000',
          __ol: true,
          name: 'rate',
          property: `r${i}`,
          ctx: { rate_value: 7 + i, type: 'app', subject_id: 's' },
        })),
      });
      const requestIds: string[] = [];
      let rows: { n: string; ids: string }[] = [];
      for (let i = 0; i < sends; i++) {
        // A fresh process's worth of parts on the same directory: the in-process bus starts at offset 0 again.
        const parts = createEmbeddedParts({ chdbPath: dir, logger: createLogger('embedded', 'silent') });
        const pipeline = await startPipeline({ parts, keys, logger: createLogger('embedded', 'silent'), port: 0 });
        try {
          const r = await sendUpload(pipeline.gatewayUrl, KEYS.sdk, body);
          if (!r.requestId) throw new Error(`upload ${i + 1} not acknowledged (${r.status})`);
          requestIds.push(r.requestId);
          const rid = r.requestId;
          await waitFor(
            async () => {
              const got = await parts.analytics.query<{ n: string }>('SELECT toString(count()) AS n FROM rejected WHERE request_id = {r:String}', { r: rid });
              return Number(got[0]?.n) >= perSend;
            },
            { timeoutMs: 30_000, intervalMs: 100, what: `the rejections of send ${i + 1}` },
          ).catch(() => undefined); // counted below: a rejection that never arrives is the failure
          if (i === sends - 1) {
            await parts.analytics.command('OPTIMIZE TABLE rejected FINAL');
            rows = await parts.analytics.query(
              'SELECT toString(count()) AS n, toString(uniqExact(rejection_id)) AS ids FROM rejected WHERE app_id = {a:String}',
              { a: 'h-app' },
            );
          }
        } finally {
          await pipeline.stop();
          await Promise.allSettled([parts.bus.close(), parts.analytics.close()]);
        }
      }
      const n = Number(rows[0]?.n ?? 0);
      const ids = Number(rows[0]?.ids ?? 0);
      const want = sends * perSend;
      const failures: string[] = [];
      if (n !== want) failures.push(`${n} rejected rows, want ${want}`);
      if (ids !== want) failures.push(`${ids} distinct rejection ids, want ${want}`);
      const counts = { sent: want, acked: requestIds.length * perSend, stored: 0, rejected: ids, lost: Math.max(0, want - ids), dup: n - ids };
      return { id: 'h', title: this.title, counts, recoveredMs: null, failures, notes: [`${n} rows, ${ids} distinct ids`] };
    },
  },
  replicasScenario,
  {
    id: 'j',
    title: `Redis primary kill -9 under 2 × 50 concurrent pullers of ${ACTIONS.toLocaleString('en')} one-off actions (Sentinel; without, then with WAIT 1)`,
    short: true,
    standalone: true,
    async run(h, { tag }) {
      const runs: FailoverRun[] = [];
      for (const wait of [false, true]) {
        runs.push(
          await failoverRun(h, {
            wait,
            tag: `${tag}-${wait ? 'wait' : 'nowait'}`,
            redisBasePort: h.ports.redisGroup,
            storeBasePort: h.ports.failoverStores,
          }),
        );
      }
      const [plain, waited] = runs as [FailoverRun, FailoverRun];
      const failures: string[] = [];
      for (const r of runs) {
        const variant = r.wait ? 'with WAIT' : 'without WAIT';
        if (r.created !== ACTIONS) failures.push(`${variant}: ${r.created} of ${ACTIONS} created`);
        if (r.failoverMs === undefined) failures.push(`${variant}: a store never served pulls again`);
      }
      // The replica wait's promise: nothing answered twice. Lost (marked by a pull whose answer died
      // with the primary) is bounded by the pulls in flight, with or without it (docs/reliability.md "Redis failover").
      if (waited.duplicates !== 0) failures.push(`with WAIT: ${waited.duplicates} delivered twice`);
      for (const r of runs) if (r.lost > IN_FLIGHT_BOUND || r.lost < 0) failures.push(`${r.wait ? 'with' : 'without'} WAIT: ${r.lost} never delivered`);
      const describe = (r: FailoverRun) =>
        `${r.wait ? 'with WAIT 1 (200 ms)' : 'without WAIT'}: ${r.deliveries} deliveries, ${r.distinct} distinct, ${r.duplicates} twice, ${r.lost} never, ` +
        `promoted after ${(r.promotedMs / 1000).toFixed(1)} s, both stores serving ${r.failoverMs === undefined ? 'never' : `after ${(r.failoverMs / 1000).toFixed(1)} s`}, ${r.refused} pulls refused (${r.abandoned} unanswered within 30 s)`;
      const counts = { sent: waited.created, acked: waited.created, stored: waited.distinct, rejected: 0, lost: waited.lost, dup: waited.duplicates };
      return { id: 'j', title: this.title, counts, recoveredMs: waited.failoverMs, failures, notes: [describe(plain), describe(waited)] };
    },
  },
  clusterScenario,
  erasureScenario,
];
