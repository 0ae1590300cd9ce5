/**
 * Full recompute of segments over generated data (issue 13): 100,000 users, 10,000,000 events
 * (dataset.ts), each definition's compiled query (compileSegment, evaluationParams — what the
 * engine runs for a full evaluation) timed beside a bare `SELECT count() FROM events WHERE app_id = …
 * GROUP BY user_id` over the same rows, alternately, in the same run; medians of `--reps` runs and
 * their ratio, in wall time and in process CPU time. Both are wrapped in `SELECT count() FROM (…)` so only the engine's work is timed (the
 * bare query would otherwise hand 100,000 rows to JS, a segment far fewer). Measured on both part
 * states of the data: as inserted (ten inserts, merges stopped) and merged (OPTIMIZE … FINAL).
 *
 *   npm run bench:segments -- [--reps 5] [--states parts,merged] [--only 5] [--sql] [--events N --dir PATH]
 *
 * The data set is generated on the first run (a few minutes) into .local/bench-segments.
 */
import { resolve } from 'node:path';
import { runMigrations } from '@evp/clickhouse';
import { createChdbAnalytics } from '@evp/embedded';
import { compileSegment, evaluationParams, validateDefinition } from '@evp/segment-language';
import { APP, DATABASES, EVENTS, NOW, USERS, ensureDataset, partsOf, type PartState } from './dataset';
import { DEFINITIONS } from './definitions';
import { measure, median } from './timing';
import { textOption } from '../options';

const REPS = Number(textOption('reps', '5'));
const STATES = textOption('states', 'parts,merged').split(',') as PartState[];
const ONLY = textOption('only', '');
const SHOW_SQL = process.argv.includes('--sql');
// --events and --dir make a smaller trial data set elsewhere.
const N = Number(textOption('events', String(EVENTS)));
const DIR = textOption('dir', resolve(__dirname, '..', '..', '.local', 'bench-segments'));

const BARE = `SELECT user_id, count() AS n FROM events WHERE app_id = {app_id:String} GROUP BY user_id`;

interface Row {
  state: PartState;
  parts: number;
  label: string;
  members: number;
  ms: number;
  bareMs: number;
  cpu: number;
  bareCpu: number;
}

function compile(definition: unknown) {
  const v = validateDefinition(definition, { definitionOf: () => undefined });
  if (!v.ok) throw new Error(`invalid bench definition: ${JSON.stringify(v.reasons)}`);
  return compileSegment(v.value, { definitionOf: () => undefined });
}

async function main() {
  const a = createChdbAnalytics({ path: DIR });
  const rows: Row[] = [];
  try {
    await ensureDataset(
      a,
      async (db) => {
        await a.command(`USE ${db}`);
        await runMigrations({ analytics: a });
      },
      (s) => console.log(s),
      N,
    );
    const evaluation = evaluationParams(APP, NOW);
    const count = async (sql: string, params: Record<string, unknown>) => {
      const [r] = await a.query<{ n: string }>(`SELECT count() AS n FROM (${sql})`, params);
      return Number(r?.n);
    };
    for (const state of STATES) {
      await a.command(`USE ${DATABASES[state]}`);
      const { parts, partitions } = await partsOf(a, DATABASES[state]);
      console.log(`--- ${state}: ${DATABASES[state]}.events, ${parts} active parts in ${partitions} partitions`);
      const users = await count(BARE, evaluation);
      if (N === EVENTS && users !== USERS) throw new Error(`the bare query found ${users} users, expected ${USERS}`);
      for (const d of DEFINITIONS.filter((x) => x.label.includes(ONLY))) {
        const c = compile(d.definition);
        if (SHOW_SQL) console.log(c.sql);
        const params = { ...c.params, ...evaluation };
        let members = 0;
        const segment: { wall: number; cpu: number }[] = [];
        const bare: { wall: number; cpu: number }[] = [];
        // One untimed run of each first (caches), then alternately, so both see the same machine.
        await count(c.sql, params);
        await count(BARE, evaluation);
        for (let i = 0; i < REPS; i++) {
          segment.push(await measure(async () => (members = await count(c.sql, params))));
          bare.push(await measure(() => count(BARE, evaluation)));
        }
        const row: Row = {
          state,
          parts,
          label: d.label,
          members,
          ms: median(segment.map((m) => m.wall)),
          bareMs: median(bare.map((m) => m.wall)),
          cpu: median(segment.map((m) => m.cpu)),
          bareCpu: median(bare.map((m) => m.cpu)),
        };
        rows.push(row);
        const runs = (ms: { wall: number }[]) => ms.map((m) => m.wall).join(' ');
        console.log(
          `${d.label}: ${members} members, ${row.ms} ms (runs ${runs(segment)}) / bare ${row.bareMs} ms (runs ${runs(bare)}) = ${(row.ms / row.bareMs).toFixed(2)}×, CPU ${(row.cpu / row.bareCpu).toFixed(2)}×`,
        );
      }
    }
  } finally {
    await a.close();
  }
  console.log(`\n${N} events, ${USERS} users, median of ${REPS}:\n`);
  console.log('| part state | definition | members | recompute ms | bare GROUP BY user_id ms | ratio | CPU ms recompute / bare | CPU ratio |');
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    console.log(
      `| ${r.state} (${r.parts} parts) | ${r.label} | ${r.members} | ${r.ms} | ${r.bareMs} | ${(r.ms / r.bareMs).toFixed(2)}× | ${r.cpu} / ${r.bareCpu} | ${(r.cpu / r.bareCpu).toFixed(2)}× |`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
