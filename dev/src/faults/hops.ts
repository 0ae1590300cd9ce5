/**
 * Where an acknowledged event that never became a row was last seen (issue 35, "say where"): the
 * hops of an upload are the gateway's acknowledgement, its message on `ingest.raw`, the validator's
 * output on `events.<block>` (or a rejection on `ingest.rejected`), and the sink's row.
 */

/** A message's place in Kafka. */
export interface Position {
  topic: string;
  partition: number;
  offset: string;
}

/** What the topics and the table held after a run, read by a fresh consumer (hop-trace.ts). */
export interface Sightings {
  /** Request id → its messages on ingest.raw. */
  raw: Map<string, Position[]>;
  /** Event marker → its messages on events.<block> (several: the validator redelivers, at least once). */
  events: Map<string, Position[]>;
  /** Request id → its rejections on ingest.rejected. */
  rejected: Map<string, Position[]>;
  /** Event markers with a row in the table. */
  stored: Set<string>;
}

/** The last hop a lost event was seen at. */
export type Hop = 'acked' | 'raw' | 'topic' | 'table';

const HOP_WORDS: Record<Hop, string> = {
  acked: 'acknowledged but not on ingest.raw',
  raw: 'on ingest.raw but not on events.<block> nor ingest.rejected',
  topic: 'on events.<block> but not in the table',
  // Counted lost at the deadline, found when traced: late, not lost.
  table: 'in the table after the deadline (late)',
};

/** The events of one acknowledged request last seen at one hop. */
export interface LostTrace {
  requestId: string;
  hop: Hop;
  markers: string[];
  /** Where they were last seen: the request's raw messages, or the events' messages (none for `acked`). */
  at: Position[];
}

export interface LostRequest {
  requestId: string;
  /** The request's acknowledged events not counted as stored or rejected. */
  markers: string[];
}

/** Classifies every lost event by the last hop it was seen at; one trace per request and hop, in the order given. */
export function traceLost(lost: LostRequest[], seen: Sightings): LostTrace[] {
  const traces: LostTrace[] = [];
  for (const { requestId, markers } of lost) {
    const byHop = new Map<Hop, LostTrace>();
    for (const marker of markers) {
      const onTopic = seen.events.get(marker);
      const raw = seen.raw.get(requestId);
      const [hop, at]: [Hop, Position[]] = seen.stored.has(marker)
        ? ['table', []]
        : onTopic?.length
          ? ['topic', onTopic]
          : raw?.length
            ? ['raw', [...raw, ...(seen.rejected.get(requestId) ?? [])]]
            : ['acked', []];
      const trace = byHop.get(hop) ?? { requestId, hop, markers: [], at: [] };
      trace.markers.push(marker);
      for (const p of at) if (!trace.at.some((q) => samePosition(p, q))) trace.at.push(p);
      byHop.set(hop, trace);
    }
    traces.push(...byHop.values());
  }
  return traces;
}

const samePosition = (a: Position, b: Position) => a.topic === b.topic && a.partition === b.partition && a.offset === b.offset;

/** Lost events per hop. */
export function hopCounts(traces: LostTrace[]): Record<Hop, number> {
  const n: Record<Hop, number> = { acked: 0, raw: 0, topic: 0, table: 0 };
  for (const t of traces) n[t.hop] += t.markers.length;
  return n;
}

/** Positions by topic and partition: "events.core 1@500" for one, "events.core 1@500–900 (3 messages)" for more. */
function where(ps: Position[]): string {
  const byPartition = new Map<string, bigint[]>();
  for (const p of ps) {
    const k = `${p.topic} ${p.partition}`;
    byPartition.set(k, [...(byPartition.get(k) ?? []), BigInt(p.offset)]);
  }
  return [...byPartition]
    .map(([k, offsets]) => {
      const sorted = offsets.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
      return sorted.length === 1 ? `${k}@${sorted[0]}` : `${k}@${sorted[0]}–${sorted[sorted.length - 1]} (${sorted.length} messages)`;
    })
    .join(', ');
}

/** One line per trace, e.g. "request r1: 50 events on ingest.raw but not on … (ingest.raw 2@1043)". */
export function describeTrace(t: LostTrace): string {
  const at = t.at.length ? ` (${where(t.at)})` : '';
  return `request ${t.requestId}: ${t.markers.length} events ${HOP_WORDS[t.hop]}${at}`;
}

/** The per-hop summary, e.g. "lost by hop: acknowledged but not on ingest.raw 50, …". */
export const describeHops = (n: Record<Hop, number>) => `lost by hop: ${(Object.keys(HOP_WORDS) as Hop[]).map((h) => `${HOP_WORDS[h]} ${n[h]}`).join('; ')}`;
