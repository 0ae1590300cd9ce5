/**
 * Summarises V8 CPU profiles (`node --cpu-prof`): one folder per stage holding a profile per thread
 * (main thread, worker threads such as the validator's encode workers and pino's transport), merged;
 * the five functions with the most self time per stage, as a Markdown table. Idle time and V8's
 * `(program)` are left out; shares are of the stage's busy time.
 *
 *   npx tsx bench/pipeline/profiles.ts <dir> [--top 5]
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

interface HotFunction {
  name: string;
  where: string;
  selfMs: number;
  share: number;
}

const NOT_WORK = new Set(['(idle)', '(program)']);

/** Self time per function over the profiles of a stage's threads (samples weighted by their time deltas), most first. */
function hottest(profiles: Profile[], top: number): HotFunction[] {
  const selfUs = new Map<string, { name: string; where: string; us: number }>();
  let total = 0;
  for (const profile of profiles) total += addSelfTimes(profile, selfUs);
  return [...selfUs.values()]
    .sort((a, b) => b.us - a.us)
    .slice(0, top)
    .map((e) => ({ name: e.name, where: e.where, selfMs: e.us / 1000, share: total > 0 ? e.us / total : 0 }));
}

/** Adds a profile's busy self times to `selfUs`; returns its busy µs. */
function addSelfTimes(profile: Profile, selfUs: Map<string, { name: string; where: string; us: number }>): number {
  const byNode = new Map<number, ProfileNode>(profile.nodes.map((n) => [n.id, n]));
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byNode.get(profile.samples[i] as number);
    const dt = profile.timeDeltas[i] ?? 0;
    if (!node || dt <= 0 || NOT_WORK.has(node.callFrame.functionName)) continue;
    total += dt;
    const f = node.callFrame;
    const where = f.url ? `${shortUrl(f.url)}:${f.lineNumber + 1}` : '';
    const key = `${f.functionName}@${where}`;
    const entry = selfUs.get(key) ?? { name: f.functionName || '(anonymous)', where, us: 0 };
    entry.us += dt;
    selfUs.set(key, entry);
  }
  return total;
}

/** A path from the repository or node_modules onwards: enough to find the function. */
function shortUrl(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('node_modules/');
  if (nm >= 0) return path.slice(nm);
  const m = /\/(services|packages|schemas|dev|bench)\//.exec(path);
  return m ? path.slice(m.index + 1) : path;
}

export function summarise(dir: string, top: number): string {
  const lines: string[] = ['| stage | function | where | self ms | share |', '|---|---|---|---:|---:|'];
  const stages = readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  for (const stage of stages) {
    const files = readdirSync(join(dir, stage)).filter((f) => f.endsWith('.cpuprofile'));
    const profiles = files.map((f) => JSON.parse(readFileSync(join(dir, stage, f), 'utf8')) as Profile);
    for (const h of hottest(profiles, top)) {
      lines.push(`| ${stage} | \`${h.name}\` | ${h.where} | ${Math.round(h.selfMs)} | ${(h.share * 100).toFixed(1)}% |`);
    }
  }
  return lines.join('\n');
}

// Run as a script (not when run.ts imports it).
if (process.argv[1]?.endsWith('profiles.ts')) {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: profiles.ts <dir> [--top 5]');
  const i = process.argv.indexOf('--top');
  console.log(summarise(dir, i >= 0 ? Number(process.argv[i + 1]) : 5));
}
