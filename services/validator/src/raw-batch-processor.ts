import { envelopeKey } from '@evp/contract';
import { ERASABLE_KINDS, privacyOf, type Block, type BusMessage, type PrivacyTable, type RejectionReason } from '@evp/core';
import { personIdReader, type ClientJsonMemo, type NormalizeOptions, type PersonId } from '@evp/schemas';
import { Framer, type OutputSchema } from './output-schemas';
import { ColumnWriter, withoutEvents, type EventColumns } from './event-columns';
import { processRawMessage, processingFailure, type MessageOutcome } from './process-raw';
import { applyCatalogPrivacy, applyEventPrivacy, type PrivacyTally } from './privacy';

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

/** What the receipt says of an accepted event (receipt.ts). */
export interface EventVerdictFacts {
  event_id: string;
  name: string;
  user_id: string;
  event_index: number;
  warnings: readonly RejectionReason[];
  /** The ids of people an erasure can name (users, patients) in its properties: what a suppression drops it by. */
  persons: readonly PersonId[];
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
  private readonly personIds = erasablePersonIds();

  constructor(
    schemas: readonly OutputSchema[],
    private readonly normalize: NormalizeOptions,
  ) {
    this.framer = new Framer(schemas);
  }

  /** `privacy`: every app's policy (the keys file's), applied to each event and record before it is encoded. */
  encode(messages: readonly RawInput[], privacy: PrivacyTable): EncodedBatch {
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
        // Read before the privacy policy: a suppression names the ids in the clear, as sent.
        const persons = events.map(({ event: e }) => this.personIds('event', e.name, e.props));
        if (o.ctx.appId) {
          const policy = privacyOf(privacy, o.ctx.appId);
          const tally: PrivacyTally = {};
          for (const e of events) applyEventPrivacy(e, policy, tally);
          for (const c of o.catalog) applyCatalogPrivacy(c, policy, tally);
          for (const _ in tally) {
            o.privacyFields = tally;
            break;
          }
        }
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
          columns.add(e, key, event_index, start, pos, persons[i]);
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

/** The ids of the kinds of people an erasure names (users, patients) at a value's tagged paths. */
export function erasablePersonIds(): (source: 'event' | 'catalog', name: string, value: unknown) => readonly PersonId[] {
  const read = personIdReader();
  return (source, name, value) => {
    const ids = read(source, name, value);
    // Most events name nobody: their (shared, frozen) empty list is returned as it is, not filtered into a new one.
    return ids.length === 0 ? ids : ids.filter((p) => (ERASABLE_KINDS as readonly string[]).includes(p.person));
  };
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
