/**
 * End-to-end pipeline benchmark (issue 11): the fault suite's harness (dev/src/faults) with every
 * stage in its own process — gateway, validator, segmenter sink on chdb — on a Kafka broker and
 * registry of its own. For each offered load, 50-event uploads are sent at a steady rate for
 * `--seconds`; then, once every acknowledged event is a row:
 *   - sustained events/s: rows of the phase / (last row inserted − first event received);
 *   - freshness: `inserted_at − received_at` per row (the gateway stamps received_at, the insert
 *     stamps inserted_at: when the row became queryable), p50/p95/p99;
 *   - bare: the same rows inserted again by the sink process into a copy of `events` as value arrays
 *     (JSONCompactEachRow, the sink's format), 10,000 per insert, timed alone — the reference the
 *     pipeline is set against, in the same run.
 *
 * A warm-up at the first rate for `--warmup` seconds comes first (untimed, until stored).
 *
 * Every phase also reports the CPU budget (issue 28): µs of CPU per stored event of each process —
 * gateway, validator, sink, action store, the broker's and the registry's JVMs, Redis and the load
 * generator (this process) — from /proc, between the load's start and the last event stored.
 * `--node-flags "--max-semi-space-size=64"` passes V8 flags to every service;
 * `--pin load=0,gateway=0,kafka=0,validator=1,sink=1` runs each named part on those CPUs (taskset;
 * unnamed parts run anywhere); `--cpu-prof DIR` writes a V8 CPU profile per Node process
 * (DIR/<stage>/, one file per thread) and prints the five hottest functions of each.
 *
 * `--idle SECONDS` first measures each process's CPU with no load for that long (after the warm-up)
 * and splits each phase's budget into that idle share (timers, empty fetches, heartbeats: paid per
 * second, whatever the rate) and the rest, which is what the events themselves cost.
 * `--feedback-from-core` starts the action store with FEEDBACK_FROM_CORE=true: its feedback consumer
 * reads all of `events.core` as it did before `actions.feedback` (issue 43), to set the two side by side.
 *
 *   npm run bench:pipeline -- [--rates 5000,20000] [--seconds 30] [--warmup 30] [--pin …] [--cpu-prof DIR] [--node-flags "…"] [--feedback-from-core]
 */
import { awaitAllStored } from '../../dev/src/faults/counts';
import { KEYS, sideCall } from '../../dev/src/faults/harness';
import { bounded, killAllChildren, runHarnessScript } from '../../dev/src/faults/processes';
import { startLoad } from '../../dev/src/faults/load';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { resolve } from 'node:path';
import type { ServiceName } from '../../dev/src/faults/harness';
import { benchHarness, warmUp } from './bench-harness';
import { perEvent, pin, snapshot } from './cpu-times';
import { summarise } from './profiles';
import { option, textOption } from '../options';

const RATES = textOption('rates', '5000,20000').split(',').map(Number);
const SECONDS = Number(textOption('seconds', '30'));
const WARMUP_SECONDS = Number(textOption('warmup', '30'));
/** Part → taskset CPU list (parts: load, gateway, validator, sink, action-store, kafka, registry, redis). */
const PINS = new Map(
  textOption('pin', '')
    .split(',')
    .filter(Boolean)
    .map((p) => p.split('=') as [string, string])
    .map(([part, cpus]) => [part, cpus.replace(/\+/g, ',')] as const),
);
/** Node flags for every service process (`--node-flags "--max-semi-space-size=64"`), to measure V8 settings. */
const NODE_FLAGS = textOption('node-flags', '').split(' ').filter(Boolean);
const PROFILE_OPTION = option('cpu-prof');
const FEEDBACK_FROM_CORE = process.argv.includes('--feedback-from-core');
const IDLE_SECONDS = Number(textOption('idle', '0'));
const PROFILE_DIR = PROFILE_OPTION ? resolve(PROFILE_OPTION) : undefined;
const SERVICE_NAMES: ServiceName[] = ['gateway', 'validator', 'sink', 'action-store'];
const STAGES = ['load', 'gateway', 'kafka', 'registry', 'validator', 'sink', 'action-store', 'redis'];

interface Phase {
  offered: number;
  acked: number;
  rows: number;
  lost: number;
  sustained: number;
  p50: number;
  p95: number;
  p99: number;
  bare: number;
  /** µs of CPU per stored event, by stage. */
  cpu: Record<string, number>;
  /** Seconds from the load's start to the last event stored (the span `cpu` was measured over). */
  wallS: number;
}

/** A CPU profile of this process (the load generator) while the bench runs. */
async function profileSelf(): Promise<() => Promise<void>> {
  const session = new Session();
  session.connect();
  const post = (method: string) => new Promise<unknown>((ok, fail) => session.post(method, (err, result) => (err ? fail(err) : ok(result))));
  await post('Profiler.enable');
  await post('Profiler.start');
  return async () => {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    mkdirSync(`${PROFILE_DIR}/load`, { recursive: true });
    writeFileSync(`${PROFILE_DIR}/load/main.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
  };
}

async function main() {
  const h = benchHarness('bench-pipeline').harness;
  const runId = Date.now().toString(36);
  const phases: Phase[] = [];
  /** CPU seconds per second of each process with no load (`--idle`). */
  let idle: Record<string, number> | undefined;
  if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });
  for (const service of SERVICE_NAMES) {
    const cpus = PINS.get(service);
    h.launch[service] = {
      ...(cpus ? { cpus } : {}),
      nodeArgs: [...NODE_FLAGS, ...(PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', `${PROFILE_DIR}/${service}`] : [])],
    };
  }
  if (FEEDBACK_FROM_CORE) h.overrides['action-store'] = { FEEDBACK_FROM_CORE: 'true' };
  const stopSelfProfile = PROFILE_DIR ? await profileSelf() : undefined;
  try {
    await bounded(h.start(), 5 * 60_000, 'the stack and services to start');
    const pids: Record<string, number> = { ...h.processIds(), load: process.pid };
    for (const part of ['load', 'kafka', 'registry', 'redis']) {
      const cpus = PINS.get(part);
      if (cpus && pids[part] !== undefined) pin(pids[part], cpus);
    }
    console.log(`processes: ${JSON.stringify(pids)}${PINS.size ? `, pinned: ${JSON.stringify(Object.fromEntries(PINS))}` : ''}`);
    await warmUp(h, `warm-${runId}`, { seconds: WARMUP_SECONDS, eventsPerSecond: RATES[0] });
    if (IDLE_SECONDS > 0) {
      console.log(`--- idle for ${IDLE_SECONDS} s`);
      const before = snapshot(pids);
      await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
      // perEvent over 1e6 "events" is CPU seconds; over the seconds idle, CPU seconds per second.
      idle = Object.fromEntries(Object.entries(perEvent(before, snapshot(pids), 1e6)).map(([k, v]) => [k, v / IDLE_SECONDS]));
    }
    for (const rate of RATES) {
      const tag = `p${rate}-${runId}`;
      console.log(`--- ${rate} events/s offered for ${SECONDS} s`);
      const cpuBefore = snapshot(pids);
      const started = performance.now();
      const load = startLoad({ gatewayUrl: h.gatewayUrl, key: KEYS.sdk, tag, seed: rate, rate: rate / 50, maxInFlight: 512 });
      await new Promise((r) => setTimeout(r, SECONDS * 1000));
      const tally = await load.stop();
      const { counts } = await awaitAllStored((s, p) => h.query(s, p), tally, [tag], { timeoutMs: 300_000, since: Date.now() });
      const cpuAfter = snapshot(pids);
      const wallS = (performance.now() - started) / 1000;
      const where = `startsWith(ifNull(property, ''), '${tag}:')`;
      const [f] = await h.query<Record<string, number>>(
        `SELECT count() AS rows, dateDiff('millisecond', min(received_at), max(inserted_at)) AS span,
                quantiles(0.5, 0.95, 0.99)(dateDiff('millisecond', received_at, inserted_at)) AS q
         FROM events WHERE ${where}`,
      );
      const q = (f as any).q as number[];
      const bare = await sideCall<{ rows: number; ms: number }>(h.ports.sinkQuery, '/bare-insert', { where, batch: 10_000 }, 600_000);
      const phase = {
        offered: rate,
        acked: counts.acked,
        rows: Number(f?.rows),
        lost: counts.lost,
        sustained: Math.round(Number(f?.rows) / (Number(f?.span) / 1000)),
        p50: q[0] ?? NaN,
        p95: q[1] ?? NaN,
        p99: q[2] ?? NaN,
        bare: Math.round(bare.rows / (bare.ms / 1000)),
        cpu: perEvent(cpuBefore, cpuAfter, Number(f?.rows)),
        wallS,
      };
      phases.push(phase);
      console.log(JSON.stringify(phase));
    }
  } finally {
    await bounded(h.stop(), 3 * 60_000, 'the harness to stop').catch((err) => console.error(err));
    killAllChildren();
    await stopSelfProfile?.();
  }
  console.log(
    '\n| offered events/s | acked | rows | lost | sustained events/s | freshness p50 / p95 / p99 ms | bare compact insert rows/s | pipeline / bare |',
  );
  console.log('|---:|---:|---:|---:|---:|---|---:|---:|');
  for (const p of phases) {
    console.log(
      `| ${p.offered} | ${p.acked} | ${p.rows} | ${p.lost} | ${p.sustained} | ${p.p50} / ${p.p95} / ${p.p99} | ${p.bare} | ${(p.sustained / p.bare).toFixed(2)} |`,
    );
  }
  const stages = STAGES.filter((st) => phases.some((p) => Number.isFinite(p.cpu[st])));
  console.log(`\nCPU budget, µs of CPU per stored event (from /proc, load start → last event stored):\n`);
  console.log(`| offered events/s | ${stages.join(' | ')} | total | events/s two cores allow |`);
  console.log(`|---:|${stages.map(() => '---:').join('|')}|---:|---:|`);
  for (const p of phases) {
    const total = stages.reduce((sum, st) => sum + (Number.isFinite(p.cpu[st]) ? (p.cpu[st] as number) : 0), 0);
    console.log(`| ${p.offered} | ${stages.map((st) => (p.cpu[st] as number).toFixed(1)).join(' | ')} | ${total.toFixed(1)} | ${Math.round(2e6 / total)} |`);
  }
  if (idle) {
    const cpuIdle = idle;
    console.log(`\nWith no load (${IDLE_SECONDS} s after the warm-up), ms of CPU per second:\n`);
    console.log(`| ${stages.join(' | ')} | total |`);
    console.log(`|${stages.map(() => '---:').join('|')}|---:|`);
    const ms = (st: string) => (cpuIdle[st] ?? Number.NaN) * 1000;
    console.log(`| ${stages.map((st) => ms(st).toFixed(1)).join(' | ')} | ${stages.reduce((n, st) => n + ms(st), 0).toFixed(1)} |`);
    console.log(`\nEach phase's µs per stored event split as idle share (the idle rate over the phase's span) + the rest:\n`);
    console.log(`| offered events/s | ${stages.join(' | ')} | total |`);
    console.log(`|---:|${stages.map(() => '---:').join('|')}|---:|`);
    for (const p of phases) {
      const share = (st: string) => ((cpuIdle[st] ?? 0) * p.wallS * 1e6) / p.rows;
      const cell = (st: string) => `${share(st).toFixed(1)} + ${((p.cpu[st] as number) - share(st)).toFixed(1)}`;
      const idleTotal = stages.reduce((n, st) => n + share(st), 0);
      const restTotal = stages.reduce((n, st) => n + (p.cpu[st] as number) - share(st), 0);
      console.log(`| ${p.offered} | ${stages.map(cell).join(' | ')} | ${idleTotal.toFixed(1)} + ${restTotal.toFixed(1)} |`);
    }
  }
  if (PROFILE_DIR) console.log(`\nHottest functions per stage (self time, ${PROFILE_DIR}):\n\n${summarise(PROFILE_DIR, 5)}`);
}

runHarnessScript(main);
