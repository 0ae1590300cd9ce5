import type { InspectedDeadLetter, InspectedEvent, InspectedRejection } from '@evp/segmenter';

/** Most rows of each kind the page keeps and asks for. */
export const KEEP = 200;
/** Rows can reach ClickHouse a little out of receipt order: each poll asks again for this much before the newest row seen, deduplicated by id. */
export const OVERLAP_MS = 5000;

/** What the inspector has seen of one kind: rows by id, and the newest row's time (epoch ms). */
interface Seen<T> {
  rows: Map<string, T>;
  newest: number;
}

/** The three lists the inspector watches, with what identifies and dates a row of each. */
const KINDS = {
  events: { id: (r: InspectedEvent) => r.event_id, at: (r: InspectedEvent) => r.received_at },
  rejected: { id: (r: InspectedRejection) => r.rejection_id, at: (r: InspectedRejection) => r.received_at },
  deadletters: { id: (r: InspectedDeadLetter) => r.dead_letter_id, at: (r: InspectedDeadLetter) => r.failed_at },
};
export type Kind = keyof typeof KINDS;
export interface Rows {
  events: InspectedEvent;
  rejected: InspectedRejection;
  deadletters: InspectedDeadLetter;
}

/** The filters of the prompt: user, event name, request. Dead letters are not filtered (they have no user). */
export interface Filters {
  user_id: string;
  name: string;
  request_id: string;
}

/** One connection's watch: what it has seen, the next query of each kind, the lists as shown. */
export class Watch {
  private readonly seen: { [K in Kind]: Seen<Rows[K]> } = {
    events: { rows: new Map(), newest: 0 },
    rejected: { rows: new Map(), newest: 0 },
    deadletters: { rows: new Map(), newest: 0 },
  };

  constructor(private readonly filters: Filters) {}

  /** The next poll's URL of a kind: the filters, and since the newest row seen less the overlap. */
  query(kind: Kind): string {
    const p = new URLSearchParams();
    if (kind !== 'deadletters') for (const [k, v] of Object.entries(this.filters) as [keyof Filters, string][]) if (v) p.set(k, v);
    const newest = this.seen[kind].newest;
    if (newest) p.set('since', String(newest - OVERLAP_MS));
    p.set('limit', String(KEEP));
    return `/v1/inspect/${kind}?${p.toString()}`;
  }

  /** Takes a poll's rows in (a row seen before is replaced, not repeated). */
  add<K extends Kind>(kind: K, rows: readonly Rows[K][]): void {
    const seen = this.seen[kind];
    const { id, at } = KINDS[kind] as { id: (r: Rows[K]) => string; at: (r: Rows[K]) => string };
    for (const r of rows) {
      seen.rows.set(id(r), r);
      seen.newest = Math.max(seen.newest, Date.parse(at(r)));
    }
  }

  count(kind: Kind): number {
    return this.seen[kind].rows.size;
  }

  /** The newest KEEP rows of a kind, newest first (events by receipt, then by their own time). */
  list<K extends Kind>(kind: K): Rows[K][] {
    const rows = [...this.seen[kind].rows.values()];
    const { at } = KINDS[kind] as { at: (r: Rows[K]) => string };
    const byTime = (a: Rows[K], b: Rows[K]) =>
      at(b).localeCompare(at(a)) || (kind === 'events' ? (b as InspectedEvent).time.localeCompare((a as InspectedEvent).time) : 0);
    return rows.sort(byTime).slice(0, KEEP);
  }
}
