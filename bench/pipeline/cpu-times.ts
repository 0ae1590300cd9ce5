import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { requireProgram } from '@evp/testkit';

/**
 * CPU time per process from /proc (user + system of every thread, in seconds), so a benchmark can
 * put a CPU cost per event beside each stage: the services, the broker's and the registry's JVMs,
 * Redis, and the load generator (the bench's own process).
 */
const TICKS_PER_SECOND = Number(execFileSync(requireProgram('getconf'), ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** utime + stime of `pid` in seconds; NaN when it has gone. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: fields are counted after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat(5) (utime, stime) are the 12th and 13th after the name.
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

export type CpuSnapshot = Record<string, number>;

export function snapshot(pids: Record<string, number>): CpuSnapshot {
  const s: CpuSnapshot = {};
  for (const [name, pid] of Object.entries(pids)) s[name] = pid === process.pid ? ownCpuSeconds() : cpuSeconds(pid);
  return s;
}

/** This process's CPU (finer than /proc's ticks). */
const ownCpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** µs of CPU per event of each process between two snapshots. */
export function perEvent(before: CpuSnapshot, after: CpuSnapshot, events: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of Object.keys(before)) out[name] = (((after[name] ?? Number.NaN) - (before[name] ?? Number.NaN)) * 1e6) / events;
  return out;
}

/** Pins a running process (every thread) to `cpus`, a taskset list such as "0" or "0,1". */
export function pin(pid: number, cpus: string): void {
  execFileSync(requireProgram('taskset'), ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
}
