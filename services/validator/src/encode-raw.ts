import { BLOCKS, topics, type BusMessage, type RejectionReason, type SchemaRegistry } from '@evp/core';
import { encodeWireFormat, parseAvroSchema } from '@evp/registry';
import { blockEventSchema, blockSubject, canonicalToAvro, type CanonicalEvent, type ClientJsonMemo, type NormalizeOptions } from '@evp/schemas';
import { processRawMessage, processingFailure, type RawOutcome } from './process-raw';

/** A block schema as registered through the registry port: what a worker needs to encode events. */
export interface EventSchemaRef {
  block: string;
  id: number;
  schema: object;
}

/** Registers every block's event schema under its topic's subject; what RawEncoder is built from. */
export async function registerEventSchemas(registry: SchemaRegistry): Promise<EventSchemaRef[]> {
  const refs: EventSchemaRef[] = [];
  for (const block of BLOCKS) {
    const schema = blockEventSchema(block) as object;
    refs.push({ block, id: await registry.register(blockSubject(topics.events(block)), schema), schema });
  }
  return refs;
}

/** One accepted event, encoded (Confluent wire format) at bytes [start, end) of its batch's buffer. */
interface EncodedEventRef extends EventVerdictFacts {
  block: string;
  key: string;
  app_id: string;
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

/** A raw message's outcome with its events already encoded; catalog records and rejections stay values. */
export type EncodedOutcome = Omit<RawOutcome, 'events' | 'eventIndexes'> & { events: EncodedEventRef[] };

/** The outcomes of consecutive raw messages, their events' bytes packed in one transferable buffer. */
export interface EncodedBatch {
  outcomes: EncodedOutcome[];
  bytes: ArrayBuffer;
}

/** What processRawMessage reads of a raw message; in a worker its value is a view into a packed buffer. */
export type RawInput = Pick<BusMessage, 'value' | 'headers' | 'timestamp'>;

interface BlockEncoder {
  type: ReturnType<typeof parseAvroSchema>;
  header: Buffer;
}

/**
 * Normalise + validate + Avro-encode raw messages, the validator's CPU work, in whichever thread
 * runs it (inline or a pool worker: the same function). Events are written with the schemas the
 * validator registered, by their registry ids, exactly as the registry port's encode frames them
 * (magic byte, 4-byte id, Avro body), into one growing buffer, so a batch leaves a worker as one
 * transfer instead of a structured clone per event.
 */
export class RawEncoder {
  private readonly blocks = new Map<string, BlockEncoder>();
  private scratch = Buffer.allocUnsafeSlow(1 << 20);

  constructor(
    schemas: readonly EventSchemaRef[],
    private readonly normalize: NormalizeOptions,
  ) {
    for (const s of schemas) {
      this.blocks.set(s.block, { type: parseAvroSchema(s.schema), header: encodeWireFormat(s.id, Buffer.alloc(0)) });
    }
  }

  encode(messages: readonly RawInput[]): EncodedBatch {
    let pos = 0;
    const outcomes: EncodedOutcome[] = [];
    for (const msg of messages) {
      const mark = pos;
      try {
        const { events, eventIndexes, ...rest } = processRawMessage(msg, this.normalize);
        // The events of one message share their envelope's `client`: its JSON is computed once.
        const clientJson: ClientJsonMemo = new Map();
        const refs: EncodedEventRef[] = [];
        for (let i = 0; i < events.length; i++) {
          const e = events[i] as CanonicalEvent;
          const block = this.blocks.get(e.block);
          if (block === undefined) throw new Error(`no registered schema for block ${e.block}`);
          const start = pos;
          pos = this.write(block, canonicalToAvro(e, clientJson), start);
          refs.push({
            block: e.block,
            key: `${e.app_id}:${e.user_id}`,
            app_id: e.app_id,
            event_id: e.event_id,
            name: e.name,
            user_id: e.user_id,
            event_index: eventIndexes[i] as number,
            warnings: e.warnings,
            start,
            end: pos,
          });
        }
        outcomes.push({ ...rest, events: refs });
      } catch (err) {
        // An event Avro cannot encode is as much a poison input as one normalisation cannot read:
        // the message's bytes written so far are dropped and it becomes one typed rejection.
        pos = mark;
        outcomes.push({ ...processingFailure(msg, err), events: [] });
      }
    }
    // A copy of exactly the written bytes: the scratch buffer stays for the next batch.
    return { outcomes, bytes: this.scratch.buffer.slice(this.scratch.byteOffset, this.scratch.byteOffset + pos) };
  }

  /** Frames one record at `pos`, growing the scratch buffer when it is too small; returns the end. */
  private write(block: BlockEncoder, record: unknown, pos: number): number {
    for (;;) {
      if (pos + block.header.length <= this.scratch.length) {
        block.header.copy(this.scratch, pos);
        // avsc returns the negated missing room instead of throwing when the buffer is too small.
        const end = block.type.encode(record, this.scratch, pos + block.header.length);
        if (end >= 0) return end;
      }
      const grown = Buffer.allocUnsafeSlow(2 * this.scratch.length);
      this.scratch.copy(grown, 0, 0, pos);
      this.scratch = grown;
    }
  }
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
