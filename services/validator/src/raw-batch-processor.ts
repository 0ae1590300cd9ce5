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

/** The outcomes of consecutive raw messages, their events' bytes packed in one transferable buffer. */
export interface EncodedBatch {
  outcomes: MessageOutcome<FramedEvent<ByteRange>>[];
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

  constructor(
    schemas: readonly OutputSchema[],
    private readonly normalize: NormalizeOptions,
  ) {
    this.framer = new Framer(schemas);
  }

  encode(messages: readonly RawInput[]): EncodedBatch {
    let pos = 0;
    const outcomes: EncodedBatch['outcomes'] = [];
    // The events of an envelope share their app and user: their key is one string, not one per event.
    let keyApp = '';
    let keyUser = '';
    let key = '';
    for (const msg of messages) {
      const mark = pos;
      try {
        const o = processRawMessage(msg, this.normalize);
        const events = o.events;
        // The events of one message share their envelope's `client`: its JSON is computed once.
        const clientJson: ClientJsonMemo = new Map();
        const framed: FramedEvent<ByteRange>[] = [];
        for (let i = 0; i < events.length; i++) {
          const { event: e, event_index } = events[i] as (typeof events)[number];
          const start = pos;
          pos = this.framer.writeEvent(e, clientJson, start);
          if (e.app_id !== keyApp || e.user_id !== keyUser || key === '') {
            keyApp = e.app_id;
            keyUser = e.user_id;
            key = envelopeKey(keyApp, keyUser);
          }
          framed.push({
            block: e.block,
            key,
            app_id: e.app_id,
            event_id: e.event_id,
            name: e.name,
            user_id: e.user_id,
            event_index,
            warnings: e.warnings,
            value: { start, end: pos },
          });
        }
        outcomes.push(withEvents(o, framed));
      } catch (err) {
        // An event Avro cannot encode is as much a poison input as one normalisation cannot read:
        // the message's bytes written so far are dropped and it becomes one typed rejection.
        pos = mark;
        outcomes.push(processingFailure(msg, err));
      }
    }
    return { outcomes, bytes: this.framer.takeOut(pos) };
  }
}

/**
 * The outcome with its events framed: its fields written out in the order `{ ...rest, events }` gave
 * them (object rest per message cost more than naming them), `client` only where the outcome has it.
 */
function withEvents<A, B>(o: MessageOutcome<A>, events: B[]): MessageOutcome<B> {
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
