/**
 * The fault suite: `npm run faults` (every scenario, many minutes) or `npm run faults -- --short`
 * (a subset with shorter phases, a few minutes); `--only a,c` picks scenarios; `--repeat N` runs
 * them N times in a row on one stack and prints each run's counts (`--only k --repeat 20`); `--write-docs`
 * puts the results table into docs/reliability.md ("## Fault suite"). Exits non-zero when any
 * scenario fails. See docs/reliability.md.
 */
import { resolve } from 'node:path';
import { loadFaultsConfig } from './config';
import { Harness } from './harness';
import { bounded, killAllChildren, runHarnessScript } from './processes';
import { loopTable, resultsTable, runLine, writeSection, type LoopRun } from './report';
import { scenarioContext } from './scenario-kit';
import { runScenarios } from './scenario-runner';
import { scenarios, type ScenarioResult } from './scenarios';

const SCENARIO_DEADLINE_MS = 10 * 60_000;

async function main() {
  const args = process.argv.slice(2);
  const short = args.includes('--short');
  const onlyArg = args[args.indexOf('--only') + 1];
  const only = args.includes('--only') && onlyArg ? new Set(onlyArg.split(',')) : undefined;
  const chosen = scenarios.filter((s) => (only ? only.has(s.id) : !short || s.short));
  const config = loadFaultsConfig();
  const h = new Harness(config);
  const runId = Date.now().toString(36);
  const results: ScenarioResult[] = [];
  const runs: LoopRun[] = [];
  const repeat = args.includes('--repeat') ? Number(args[args.indexOf('--repeat') + 1]) : 1;
  if (!Number.isInteger(repeat) || repeat < 1) throw new Error('--repeat takes a whole number of runs, e.g. --repeat 20');
  const t0 = Date.now();
  try {
    // Standalone scenarios only: no stack. Cluster scenarios only: the cluster, no single broker left idle.
    const kafka = chosen.length > 0 && chosen.every((s) => s.kafka === 'cluster') ? 'cluster' : 'single';
    if (chosen.every((s) => s.standalone)) {
      h.prepare();
    } else {
      console.log(`starting the stack (Kafka: ${kafka}) and services in ${h.dir}`);
      // Three JVMs recover and elect before the services start: longer on a busy machine.
      await bounded(h.start(kafka), (kafka === 'cluster' ? 10 : 5) * 60_000, 'the stack and services to start');
    }
    console.log(`up in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    for (let i = 1; i <= repeat; i++) {
      // Each repetition its own tag (the scenario's markers), on the same stack.
      const id = repeat > 1 ? `${runId}-${i}` : runId;
      const round = await runScenarios(chosen, {
        run: (s) => {
          const ctx = scenarioContext(s.id, short, id);
          return s.standalone ? s.run(h, ctx) : h.useKafka(s.kafka ?? 'single').then(() => s.run(h, ctx));
        },
        cleanup: () => h.cleanup(),
        deadlineMs: (s) => s.deadlineMs ?? SCENARIO_DEADLINE_MS,
        log: (line) => console.log(repeat > 1 ? `[run ${i}/${repeat}] ${line}` : line),
      });
      runs.push(...round.map((r) => ({ run: i, ...r })));
      results.push(...round);
      if (repeat > 1) console.log(`[run ${i}/${repeat}] ${round.map(runLine).join('; ')}`);
    }
  } finally {
    await bounded(h.stop(), 3 * 60_000, 'the harness to stop').catch((err) => console.error(err));
    killAllChildren();
  }
  const table = repeat > 1 ? loopTable(runs) : resultsTable(results);
  console.log(`\n${table}`);
  if (args.includes('--write-docs')) {
    const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
    writeSection(
      resolve(__dirname, '../../../docs/reliability.md'),
      `${intro}\n\nRun ${when} UTC (${short ? '`--short`' : 'full'}${only ? `, --only ${[...only].join(',')}` : ''}), ${((Date.now() - t0) / 60_000).toFixed(1)} min:\n\n${table}`,
    );
  }
  process.exit(results.every((r) => r.failures.length === 0) && results.length === chosen.length * repeat ? 0 : 1);
}

const intro = `\`npm run faults\` (all scenarios; about 16 minutes) or \`npm run faults -- --short\` (b–f, h, j, k and l with
shorter phases; several minutes); \`--only a,g\` picks scenarios (\`--only k\`: the Kafka cluster alone), \`--repeat N\` runs them N times in a
row on one stack and prints each run's counts and, at the end, a table of all runs with how many
passed in a row (\`--only k --repeat 20\`: the proof of "Kafka as a cluster"), \`--write-docs\` rewrites this table.
When events are lost, the scenario names, for each, the last hop it was seen at — acknowledged but
not on \`ingest.raw\`; on \`ingest.raw\` but not on \`events.<block>\` nor \`ingest.rejected\`; on
\`events.<block>\` but not in the table; in the table after the deadline (late) — with topic,
partition and offset, read after the run by a fresh consumer (a group of its own, never committed)
and matched by request id and event marker (dev/src/faults/hops.ts, hop-trace.ts).
After every scenario, whether it passed, failed or threw, every process it left running is killed
and the four services run again; a program that cannot be started (not installed: spawn's ENOENT)
fails its scenario with its name ("program redis-sentinel not found: …") and the run goes on to the
next scenario and the summary (dev/src/faults/scenario-runner.ts). Ctrl-C, SIGTERM, an uncaught
exception or rejection kill every child and take the harness's Kafka down.
The harness (dev/src/faults) starts a stack of its own — Kafka on 19092/19093, Apicurio Registry
on 18081 (deploy/local/stack.sh), redis-server with AOF (\`appendfsync always\`) on 16379 — and the
services as separate processes: gateway, validator, action store, and the segmenter sink on chdb
(dev/src/sink-chdb, which also injects ClickHouse insert faults). Scenario k moves the services to
three KRaft nodes (brokers 18401–18403, controllers 18411–18413; \`STACK_KAFKA_NODES=3\`). A seeded load generator sends
50-event current-form uploads at 10/s; every event carries a marker, every acknowledged request id
is recorded. **lost** = acknowledged events neither in \`events\` nor in \`rejected\`; **dup** = rows
beyond one per event after \`OPTIMIZE … FINAL\`; **recovery** = from the end of the fault (restart)
until an upload acknowledged after it is queryable in ClickHouse; every acknowledged event must be
stored within 3 minutes of the fault, or it counts as lost. Scenario e counts
one-off actions (stored = delivered distinct, dup = delivered twice); h counts rejected rows.
Scenarios a and k also send nudge responses through the fault (dev/src/faults/feedback-load.ts): 400
one-off actions, one per user and action id, under an invocation id of the run's own, then one \`open\`
response a user as an upload, two a second beside the event load, each without waiting for the
answer to the one before (so they keep coming while Kafka is away). The validator copies each to
\`actions.feedback\` in the same send as its \`events.core\` original, and the action store reads that
topic alone (docs/actions.md, "Feedback"); after the run, each action's stats (\`by_inv_id\`) must count
every acknowledged response exactly once — none lost, none twice (a response answered 503 while Kafka
was away may have been written all the same: counted once or not at all, as a note). k also checks
\`actions.feedback\`'s replication (3 replicas, \`min.insync.replicas\` 2, no unclean election) with
\`ingest.raw\`'s and the \`events.*\` topics'. **took** is a scenario's wall time, its clean-up included.
Scenario i (replicated services behind nginx; not in \`--short\`) counts the upload load's events;
its actions, segment entries, campaign actions and the edge's answers are in its notes and in
"Replicated services" below. Scenario j brings its own Redis primary, replica and three sentinels and
two action stores (no Kafka: \`--only j\` starts nothing else, ≈ 1 min) and counts one-off actions like
e, its table row for the WAIT variant (see "Redis failover"). The ports move with FAULTS_KAFKA_PORT,
FAULTS_REGISTRY_PORT, FAULTS_REDIS_PORT and FAULTS_BASE_PORT (dev/src/faults/config.ts).
Scenario l (issue #40) seeds a user through the routes (20 events through the gateway, an action in
the action store's Redis) beside a second user, asks \`POST /v1/privacy/erasures\` for the first on the
segmenter (the sink process, PRIVACY_HASH_KEY and REDIS_URL set), holds the request after each table's
delete (FAULT_ERASURE_PAUSE_MS, dev/src/sink-chdb), kills the process with SIGKILL once the request is
in \`deleting\` with \`events\` done, restarts it without the pause and polls (3 minutes at most) until the
request ends: it must end \`completed\` with every store's after-count 0, the erased user's pull
delivering 0 and the other's 1; it counts the other user's events, and its recovery is from the restart
until the request ended (dev/src/faults/scenario-erasure.ts).`;

runHarnessScript(main);
