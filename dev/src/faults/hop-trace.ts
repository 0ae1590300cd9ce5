import { BLOCKS, createLogger, topics } from '@evp/core';
import { createKafkaBus } from '@evp/kafka';
import { createConfluentRegistry } from '@evp/registry';
import type { Harness } from './harness';
import { describeHops, describeTrace, hopCounts, traceLost, type Hop, type LostRequest, type Position, type Sightings } from './hops';
import type { LoadTally } from './load';

/** Lines of single requests printed (the per-hop totals cover all). */
const SHOWN = 20;

const positionOf = (m: { topic: string; partition: number; offset: string }): Position => ({ topic: m.topic, partition: m.partition, offset: m.offset });
const add = <K>(map: Map<K, Position[]>, key: K, p: Position) => map.set(key, [...(map.get(key) ?? []), p]);

/** The acknowledged events of `tally` neither stored nor rejected now, per request. */
async function lostRequests(h: Harness, tally: LoadTally): Promise<{ lost: LostRequest[]; stored: Set<string> }> {
  const ids = [...tally.acked.keys()];
  const rows = await h.query<{ request_id: string; markers: string[] }>(
    "SELECT request_id, groupUniqArray(ifNull(property, '')) AS markers FROM events WHERE request_id IN {ids:Array(String)} GROUP BY request_id",
    { ids },
  );
  const rejected = await h.query<{ request_id: string }>('SELECT DISTINCT request_id FROM rejected WHERE request_id IN {ids:Array(String)}', { ids });
  const stored = new Set(rows.flatMap((r) => r.markers));
  // A request with a rejection is counted by its rejected events (counts.ts); the load sends none.
  const withRejection = new Set(rejected.map((r) => r.request_id));
  const lost: LostRequest[] = [];
  for (const [requestId, markers] of tally.acked) {
    const missing = markers.filter((m) => !stored.has(m));
    if (missing.length > 0 && !withRejection.has(requestId)) lost.push({ requestId, markers: missing });
  }
  return { lost, stored };
}

/**
 * Where each acknowledged event that is not in the table was last seen: the topics are read from
 * `since` by a fresh consumer (a group of its own, never committed: bus.scan), matched by request id
 * (ingest.raw's header, the request_id of events and rejections) and event marker. Reads Kafka
 * only when something is lost.
 */
export async function traceLosses(h: Harness, tally: LoadTally, since: number): Promise<{ hops: Record<Hop, number>; lines: string[] }> {
  const { lost, stored } = await lostRequests(h, tally);
  if (lost.length === 0) return { hops: hopCounts([]), lines: [] };
  const wanted = new Set(lost.map((l) => l.requestId));
  const seen: Sightings = { raw: new Map(), events: new Map(), rejected: new Map(), stored };
  const bus = createKafkaBus({ brokers: h.brokers, clientId: 'faults-trace', logger: createLogger('faults-trace', 'silent'), scanTimeoutMs: 300_000 });
  const registry = createConfluentRegistry({ url: h.registryUrl, clientId: 'faults-trace' });
  try {
    await bus.scan(topics.raw, since, (m) => {
      const rid = m.headers.request_id;
      if (rid !== undefined && wanted.has(rid)) add(seen.raw, rid, positionOf(m));
    });
    for (const topic of [...BLOCKS.map((b) => topics.events(b)), topics.rejected]) {
      const messages: { value: Buffer; at: Position }[] = [];
      await bus.scan(topic, since, (m) => void messages.push({ value: m.value, at: positionOf(m) }));
      for (const { value, at } of messages) {
        const v = (await registry.decode(value)) as { request_id?: string; property?: string | null };
        if (v.request_id === undefined || !wanted.has(v.request_id)) continue;
        if (topic === topics.rejected) add(seen.rejected, v.request_id, at);
        else if (v.property) add(seen.events, v.property, at);
      }
    }
  } finally {
    await bus.close();
  }
  const traces = traceLost(lost, seen);
  const lines = traces.slice(0, SHOWN).map(describeTrace);
  if (traces.length > SHOWN) lines.push(`… and ${traces.length - SHOWN} more requests`);
  const hops = hopCounts(traces);
  return { hops, lines: [describeHops(hops), ...lines] };
}
