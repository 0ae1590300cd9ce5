/** One partition's consumer lag, from /metrics' consumer_lag_messages and consumer_lag_seconds gauges. */
export interface PartitionLag {
  group: string;
  topic: string;
  partition: number;
  messages: number;
  seconds: number;
}

/** A group's lag: its partitions' messages summed, its largest lag in seconds. */
export interface GroupLag {
  group: string;
  partitions: number;
  messages: number;
  seconds: number;
}

const LAG = /^consumer_lag_(messages|seconds)\{(.*)\} (\S+)$/;

function labels(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of s.matchAll(/(\w+)="([^"]*)"/g)) out[m[1]!] = m[2]!;
  return out;
}

/** Every partition's lag in a Prometheus text exposition, by group, topic, partition. */
export function partitionLags(metrics: string): PartitionLag[] {
  const byPartition = new Map<string, PartitionLag>();
  for (const line of metrics.split('\n')) {
    const m = LAG.exec(line);
    if (!m) continue;
    const l = labels(m[2]!);
    const group = l.group ?? '';
    const topic = l.topic ?? '';
    const k = [group, topic, l.partition].join('\u0000');
    const p = byPartition.get(k) ?? { group, topic, partition: Number(l.partition), messages: 0, seconds: 0 };
    p[m[1] as 'messages' | 'seconds'] = Number(m[3]);
    byPartition.set(k, p);
  }
  return [...byPartition.values()].sort((a, b) => a.group.localeCompare(b.group) || a.topic.localeCompare(b.topic) || a.partition - b.partition);
}

/** One row per group of sorted partitions. */
export function groupLags(parts: readonly PartitionLag[]): GroupLag[] {
  const totals: GroupLag[] = [];
  for (const p of parts) {
    let t = totals[totals.length - 1];
    if (!t || t.group !== p.group) totals.push((t = { group: p.group, partitions: 0, messages: 0, seconds: 0 }));
    t.partitions += 1;
    t.messages += p.messages;
    t.seconds = Math.max(t.seconds, p.seconds);
  }
  return totals;
}
