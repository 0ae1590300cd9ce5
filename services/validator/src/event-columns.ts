import type { Block, RejectionReason } from '@evp/core';
import type { CanonicalEvent, PersonId } from '@evp/schemas';
import type { MessageOutcome } from './process-raw';
import type { EncodedBatch, FramedEvent } from './raw-batch-processor';

/** Numbers per event row of EventColumns.rows. */
/** The empty list events without warnings or person ids share: frozen, so a write to it throws rather than leaks into other events. */
const NONE: readonly never[] = Object.freeze([]);

const ROW = 8;

/**
 * The accepted events of a batch, column by column. `rows` holds ROW int32 per event: the indices of
 * its block, key, app_id, name and user_id in `strings` (each distinct string once), its event_index,
 * and the [start, end) of its bytes; `ids` its event_id; `warnings` its warnings, or 0 where it has
 * none (most events: no empty list cloned per event).
 */
export interface EventColumns {
  rows: ArrayBuffer;
  strings: string[];
  ids: string[];
  warnings: (RejectionReason[] | 0)[];
  /** The ids of people an erasure can name that its properties carry (suppression is checked against them), or 0 for none. */
  persons: (PersonId[] | 0)[];
}

/** Builds EventColumns row by row; strings repeat (block, app, user, key, name): each is kept once. */
export class ColumnWriter {
  private rows = new Int32Array(ROW * 1024);
  private n = 0;
  private readonly strings: string[] = [];
  private readonly index = new Map<string, number>();
  private readonly ids: string[] = [];
  private readonly warnings: (RejectionReason[] | 0)[] = [];
  private readonly persons: (PersonId[] | 0)[] = [];

  /** One event's row: what the event itself says, its key, its index in its envelope, its bytes' range. */
  add(
    e: Pick<CanonicalEvent, 'block' | 'app_id' | 'name' | 'user_id' | 'event_id' | 'warnings'>,
    key: string,
    eventIndex: number,
    start: number,
    end: number,
    persons: readonly PersonId[] = NONE,
  ): void {
    if ((this.n + 1) * ROW > this.rows.length) {
      const grown = new Int32Array(2 * this.rows.length);
      grown.set(this.rows);
      this.rows = grown;
    }
    const r = this.rows;
    const at = this.n * ROW;
    r[at] = this.id(e.block);
    r[at + 1] = this.id(key);
    r[at + 2] = this.id(e.app_id);
    r[at + 3] = this.id(e.name);
    r[at + 4] = this.id(e.user_id);
    r[at + 5] = eventIndex;
    r[at + 6] = start;
    r[at + 7] = end;
    this.ids.push(e.event_id);
    this.warnings.push(e.warnings.length === 0 ? 0 : e.warnings);
    this.persons.push(persons.length === 0 ? 0 : (persons as PersonId[]));
    this.n++;
  }

  get count(): number {
    return this.n;
  }

  /** Drops the rows from `n` on (a message whose events could not all be framed). */
  truncate(n: number): void {
    this.n = n;
    this.ids.length = n;
    this.warnings.length = n;
    this.persons.length = n;
  }

  private id(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      this.index.set(s, i);
    }
    return i;
  }

  done(): EventColumns {
    return { rows: this.rows.buffer.slice(0, this.n * ROW * 4), strings: this.strings, ids: this.ids, warnings: this.warnings, persons: this.persons };
  }
}

/**
 * The outcomes of an encoded batch with their events as objects, each event's bytes as `bytesOf`
 * makes them from its [start, end) (views on the main thread, the ranges themselves in tests).
 */
export function unpackBatch<V>(batch: EncodedBatch, bytesOf: (start: number, end: number) => V): MessageOutcome<FramedEvent<V>>[] {
  const { strings, ids, warnings, persons } = batch.events;
  const rows = new Int32Array(batch.events.rows);
  const out: MessageOutcome<FramedEvent<V>>[] = [];
  let row = 0;
  for (const o of batch.outcomes) {
    const events: FramedEvent<V>[] = [];
    for (let k = 0; k < o.eventCount; k++, row++) {
      const at = row * ROW;
      const w = warnings[row];
      const p = persons[row];
      events.push({
        block: strings[rows[at] as number] as Block,
        key: strings[rows[at + 1] as number] as string,
        app_id: strings[rows[at + 2] as number] as string,
        event_id: ids[row] as string,
        name: strings[rows[at + 3] as number] as string,
        user_id: strings[rows[at + 4] as number] as string,
        event_index: rows[at + 5] as number,
        // Most events have no warnings and name nobody: they share one frozen empty list of each
        // (read only downstream: the receipt slices warnings, suppression reads persons).
        warnings: w === 0 || w === undefined ? NONE : w,
        value: bytesOf(rows[at + 6] as number, rows[at + 7] as number),
        persons: p === 0 || p === undefined ? NONE : p,
      });
    }
    out.push(withEvents(o, events));
  }
  return out;
}

/**
 * An outcome's fields but its events, written out in the order `{ ...rest, events }` gave them
 * (object rest per message cost more than naming them), `client` only where the outcome has it.
 */
function fieldsOf<T>(o: Omit<MessageOutcome<never>, 'events'>): T {
  const out: Omit<MessageOutcome<never>, 'events'> = {
    catalog: o.catalog,
    rejections: o.rejections,
    identifyReasons: o.identifyReasons,
    ctx: o.ctx,
    payloadKind: o.payloadKind,
    envelope: o.envelope,
  };
  if ('client' in o) out.client = o.client;
  if (o.privacyFields !== undefined) out.privacyFields = o.privacyFields;
  return out as T;
}

/** The outcome with its events framed. */
function withEvents<B>(o: Omit<MessageOutcome<never>, 'events'>, events: B[]): MessageOutcome<B> {
  const out = fieldsOf<MessageOutcome<B>>(o);
  out.events = events;
  return out;
}

/** The outcome without its events, and how many it had. */
export function withoutEvents<A>(o: MessageOutcome<A>, eventCount: number): EncodedBatch['outcomes'][number] {
  const out = fieldsOf<EncodedBatch['outcomes'][number]>(o);
  out.eventCount = eventCount;
  return out;
}
