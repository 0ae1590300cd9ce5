import { envelopeKey } from '@evp/contract';
import { type Block, type BusMessage, type RejectionReason } from '@evp/core';
import type { ClientJsonMemo, NormalizeOptions } from '@evp/schemas';
import { Framer, type OutputSchema } from './output-schemas';
import { processRawMessage, processingFailure, type MessageOutcome } from './process-raw';

/**
 * An accepted event once framed (Confluent wire format): what its topic, key, headers and receipt
 * need, and its bytes: in a worker's reply `[start, end)` of the batch's buffer, on the main thread a
 * view of them.
 */
export interface FramedEvent<Bytes> extends EventVerdictFacts {
  block: Block;
  key: string;
  app_id: string;
  value: Bytes;
}

export interface ByteRange {
  start: number;
  end: number;
}

/** What the receipt says of an accepted event (receipt.ts). */
export interface EventVerdictFacts {
  event_id: string;
  name: string;
  user_id: string;
  event_index: number;
  warnings: RejectionReason[];
}

/**
 * The outcomes of consecutive raw messages, their events' bytes packed in one transferable buffer and
 * their facts in columns (EventColumns): a worker's reply is then a few arrays and two transfers, not
 * a structured clone of an object per event (which cost the main thread more than the events' own
 * work). `unpackBatch` gives the outcomes with their events as objects again.
 */
export interface EncodedBatch {
  /** Each message's outcome without its events, which are the next `eventCount` rows of `events`. */
  outcomes: (Omit<MessageOutcome<never>, 'events'> & { eventCount: number })[];
  events: EventColumns;
  bytes: ArrayBuffer;
}

/** Numbers per event row of EventColumns.rows. */
const ROW = 8;

/**
 * The accepted events of a batch, column by column. `rows` holds ROW int32 per event: the indices of
 * its block, key, app_id, name and user_id in `strings` (each distinct string once), its event_index,
 * and the [start, end) of its bytes; `ids` its event_id; `warnings` its warnings, where it has any
 * (one shared empty list otherwise: most events have none).
 */
export interface EventColumns {
  rows: ArrayBuffer;
  strings: string[];
  ids: string[];
  warnings: (RejectionReason[] | 0)[];
}

/** Builds EventColumns row by row; strings repeat (block, app, user, key, name): each is kept once. */
class ColumnWriter {
  private rows = new Int32Array(ROW * 1024);
  private n = 0;
  private readonly strings: string[] = [];
  private readonly index = new Map<string, number>();
  private readonly ids: string[] = [];
  private readonly warnings: (RejectionReason[] | 0)[] = [];

  add(block: string, key: string, appId: string, name: string, userId: string, eventIndex: number, start: number, end: number, eventId: string, warnings: RejectionReason[]): void {
    if ((this.n + 1) * ROW > this.rows.length) {
      const grown = new Int32Array(2 * this.rows.length);
      grown.set(this.rows);
      this.rows = grown;
    }
    const r = this.rows;
    const at = this.n * ROW;
    r[at] = this.id(block);
    r[at + 1] = this.id(key);
    r[at + 2] = this.id(appId);
    r[at + 3] = this.id(name);
    r[at + 4] = this.id(userId);
    r[at + 5] = eventIndex;
    r[at + 6] = start;
    r[at + 7] = end;
    this.ids.push(eventId);
    this.warnings.push(warnings.length === 0 ? 0 : warnings);
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
    return { rows: this.rows.buffer.slice(0, this.n * ROW * 4) as ArrayBuffer, strings: this.strings, ids: this.ids, warnings: this.warnings };
  }
}

/**
 * The outcomes of an encoded batch with their events as objects, each event's bytes as `bytesOf`
 * makes them from its [start, end) (views on the main thread, the ranges themselves in tests).
 */
export function unpackBatch<V>(batch: EncodedBatch, bytesOf: (start: number, end: number) => V): MessageOutcome<FramedEvent<V>>[] {
  const { strings, ids, warnings } = batch.events;
  const rows = new Int32Array(batch.events.rows);
  const out: MessageOutcome<FramedEvent<V>>[] = [];
  let row = 0;
  for (const o of batch.outcomes) {
    const events: FramedEvent<V>[] = [];
    for (let k = 0; k < o.eventCount; k++, row++) {
      const at = row * ROW;
      const w = warnings[row];
      events.push({
        block: strings[rows[at] as number] as Block,
        key: strings[rows[at + 1] as number] as string,
        app_id: strings[rows[at + 2] as number] as string,
        event_id: ids[row] as string,
        name: strings[rows[at + 3] as number] as string,
        user_id: strings[rows[at + 4] as number] as string,
        event_index: rows[at + 5] as number,
        // A fresh empty list per event, as each event had its own: nothing downstream shares it.
        warnings: w === 0 || w === undefined ? [] : w,
        value: bytesOf(rows[at + 6] as number, rows[at + 7] as number),
      });
    }
    out.push(withEvents(o, events));
  }
  return out;
}

/** What processRawMessage reads of a raw message; in a worker its value is a view into a packed buffer. */
export type RawInput = Pick<BusMessage, 'value' | 'headers' | 'timestamp'>;

/**
 * Normalise + validate + Avro-encode raw messages, the validator's CPU work, in whichever thread
 * runs it (inline or a pool worker: the same function). Events are framed by the validator's one
 * Framer into one growing buffer, so a batch leaves a worker as one transfer instead of a
 * structured clone per event.
 */
export class RawBatchProcessor {
  private readonly framer: Framer;

  constructor(
    schemas: readonly OutputSchema[],
    private readonly normalize: NormalizeOptions,
  ) {
    this.framer = new Framer(schemas);
  }

  encode(messages: readonly RawInput[]): EncodedBatch {
    let pos = 0;
    const outcomes: EncodedBatch['outcomes'] = [];
    const columns = new ColumnWriter();
    // The events of an envelope share their app and user: their key is one string, not one per event.
    let keyApp = '';
    let keyUser = '';
    let key = '';
    for (const msg of messages) {
      const mark = pos;
      const rowMark = columns.count;
      try {
        const o = processRawMessage(msg, this.normalize);
        const events = o.events;
        // The events of one message share their envelope's `client`: its JSON is computed once.
        const clientJson: ClientJsonMemo = new Map();
        for (let i = 0; i < events.length; i++) {
          const { event: e, event_index } = events[i] as (typeof events)[number];
          const start = pos;
          pos = this.framer.writeEvent(e, clientJson, start);
          if (e.app_id !== keyApp || e.user_id !== keyUser || key === '') {
            keyApp = e.app_id;
            keyUser = e.user_id;
            key = envelopeKey(keyApp, keyUser);
          }
          columns.add(e.block, key, e.app_id, e.name, e.user_id, event_index, start, pos, e.event_id, e.warnings);
        }
        outcomes.push(withoutEvents(o, events.length));
      } catch (err) {
        // An event Avro cannot encode is as much a poison input as one normalisation cannot read:
        // the message's bytes written so far are dropped and it becomes one typed rejection.
        pos = mark;
        columns.truncate(rowMark);
        outcomes.push(withoutEvents(processingFailure(msg, err), 0));
      }
    }
    return { outcomes, events: columns.done(), bytes: this.framer.takeOut(pos) };
  }
}

/**
 * The outcome with its events framed: its fields written out in the order `{ ...rest, events }` gave
 * them (object rest per message cost more than naming them), `client` only where the outcome has it.
 */
function withEvents<B>(o: Omit<MessageOutcome<never>, 'events'>, events: B[]): MessageOutcome<B> {
  const out = {
    catalog: o.catalog,
    rejections: o.rejections,
    identifyReasons: o.identifyReasons,
    ctx: o.ctx,
    payloadKind: o.payloadKind,
    envelope: o.envelope,
  } as MessageOutcome<B>;
  if ('client' in o) out.client = o.client;
  out.events = events;
  return out;
}

/** The outcome's fields but its events, and how many it had. */
function withoutEvents<A>(o: MessageOutcome<A>, eventCount: number): EncodedBatch['outcomes'][number] {
  const out = {
    catalog: o.catalog,
    rejections: o.rejections,
    identifyReasons: o.identifyReasons,
    ctx: o.ctx,
    payloadKind: o.payloadKind,
    envelope: o.envelope,
  } as EncodedBatch['outcomes'][number];
  if ('client' in o) out.client = o.client;
  out.eventCount = eventCount;
  return out;
}

/** Copies the values of raw messages into one buffer a worker can take by transfer. */
export function packValues(messages: readonly BusMessage[]): { bytes: ArrayBuffer; inputs: Omit<RawInput, 'value'>[]; ranges: number[] } {
  let total = 0;
  for (const m of messages) total += m.value.length;
  const packed = new Uint8Array(total);
  const ranges: number[] = [];
  const inputs: Omit<RawInput, 'value'>[] = [];
  let pos = 0;
  for (const m of messages) {
    packed.set(m.value, pos);
    ranges.push(pos, pos + m.value.length);
    pos += m.value.length;
    inputs.push({ headers: m.headers, timestamp: m.timestamp });
  }
  return { bytes: packed.buffer, inputs, ranges };
}

export function unpackValues(packed: { bytes: ArrayBuffer; inputs: Omit<RawInput, 'value'>[]; ranges: number[] }): RawInput[] {
  return packed.inputs.map((input, i) => {
    const start = packed.ranges[2 * i] as number;
    return { ...input, value: Buffer.from(packed.bytes, start, (packed.ranges[2 * i + 1] as number) - start) };
  });
}
