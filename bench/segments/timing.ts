/**
 * Wall time and process CPU time (every thread: chdb runs the query inside this process) of one
 * call, in milliseconds rounded to 0.1. CPU time moves less than wall time when other work shares
 * the machine.
 */
export async function measure(fn: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const cpu0 = process.cpuUsage();
  const t = process.hrtime.bigint();
  await fn();
  const wall = Number(process.hrtime.bigint() - t) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  return { wall: Math.round(wall * 10) / 10, cpu: Math.round((cpu.user + cpu.system) / 100) / 10 };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** p-quantile (0–1) by nearest rank. */
export function quantile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))] as number;
}
