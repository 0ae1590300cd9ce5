import { BLOCKS, CATALOG_KINDS, InfraError, errorMessage, topics, type SchemaRegistry } from '@evp/core';
import { encodeWireFormat, parseAvroSchema } from '@evp/registry';
import {
  AvroOut,
  blockEventSchema,
  blockSubject,
  canonicalToAvro,
  catalogSchema,
  catalogSubject,
  customCatalogSchema,
  ingestReceiptSchema,
  rejectedRecordSchema,
  writeEventAvro,
  type CanonicalEvent,
  type ClientJsonMemo,
} from '@evp/schemas';

/** The schema one output topic is written with, as registered through the registry port. */
export interface OutputSchema {
  topic: string;
  id: number;
  schema: object;
}

/**
 * Registers the schema of every topic the validator writes (each block's events, each catalog kind,
 * the app-defined kinds' shared topic, rejected records, receipts) at start, so an incompatible
 * change fails the start, not the first message of that kind hours later. This list is the only
 * place schema ids are held; the main thread and the encode workers frame with it alike.
 */
export async function registerOutputSchemas(registry: SchemaRegistry): Promise<OutputSchema[]> {
  const out: OutputSchema[] = [];
  const add = async (topic: string, subject: string, schema: object) => out.push({ topic, id: await registry.register(subject, schema), schema });
  for (const block of BLOCKS) await add(topics.events(block), blockSubject(topics.events(block)), blockEventSchema(block) as object);
  for (const kind of CATALOG_KINDS) await add(topics.catalog(kind), catalogSubject(kind), catalogSchema(kind) as object);
  // Every app-defined kind shares one topic and one schema (schemas/src/avro/custom-catalog.ts).
  await add(topics.customCatalog, blockSubject(topics.customCatalog), customCatalogSchema);
  await add(topics.rejected, blockSubject(topics.rejected), rejectedRecordSchema);
  await add(topics.receipts, blockSubject(topics.receipts), ingestReceiptSchema);
  return out;
}

interface TopicWriter {
  type: ReturnType<typeof parseAvroSchema>;
  /** Magic byte and schema id: the Confluent wire format's 5-byte head. */
  header: Buffer;
}

const FRAMER_DEPENDENCY = 'avro-encode';

/** Read once: run from sources (tsx), every use of an import is a getter call, and this runs per event. */
const writeEventBody = writeEventAvro;

/**
 * The one encoder of every output kind: a record is framed exactly as the registry port's encode
 * frames it (magic byte, 4-byte schema id, Avro body) with the schema registered for its topic.
 * It writes into one growing scratch buffer, so a worker's batch of events leaves as one transfer
 * (`write` at increasing positions, then `takeOut`), and one record costs one allocation (`frame`).
 */
export class Framer {
  private readonly writers = new Map<string, TopicWriter>();
  /** The scratch buffer, shared by avsc and the generated event writers. */
  private readonly out = new AvroOut();
  /** Block → the writer of its events' topic, for blocks registered with the current block schema: their events take the generated writers. */
  private readonly generated = new Map<string, TopicWriter>();

  constructor(schemas: readonly OutputSchema[]) {
    for (const s of schemas) this.writers.set(s.topic, { type: parseAvroSchema(s.schema), header: encodeWireFormat(s.id, Buffer.alloc(0)) });
    for (const block of BLOCKS) {
      const topic = topics.events(block);
      const registered = schemas.find((s) => s.topic === topic);
      const w = this.writers.get(topic);
      if (w !== undefined && JSON.stringify(registered?.schema) === JSON.stringify(blockEventSchema(block))) this.generated.set(block, w);
    }
  }

  /**
   * Frames one canonical event at `pos` (as `write` frames `canonicalToAvro(e)`), with its event
   * type's generated writer (@evp/schemas writeEventAvro), which writes the same bytes without the
   * record; the record and avsc only where that writer cannot vouch for the bytes.
   */
  writeEvent(e: CanonicalEvent, clientMemo: ClientJsonMemo, pos: number): number {
    const w = this.generated.get(e.block);
    if (w !== undefined) {
      const o = this.out;
      o.pos = pos;
      o.room(w.header.length);
      w.header.copy(o.buf, pos);
      o.pos += w.header.length;
      if (writeEventBody(o, e, clientMemo)) return o.pos;
    }
    return this.write(topics.events(e.block), canonicalToAvro(e, clientMemo), pos);
  }

  /**
   * Frames one record at `pos` of the scratch buffer, growing it (bytes before `pos` kept) when too
   * small; returns the end. Throws on a topic without a schema or a record its schema refuses.
   */
  write(topic: string, record: unknown, pos: number): number {
    const w = this.writers.get(topic);
    if (w === undefined) throw new Error(`no registered schema for topic ${topic}`);
    const o = this.out;
    for (;;) {
      if (pos + w.header.length <= o.buf.length) {
        w.header.copy(o.buf, pos);
        // avsc returns the negated missing room instead of throwing when the buffer is too small.
        const end = w.type.encode(record, o.buf, pos + w.header.length);
        if (end >= 0) return end;
      }
      o.pos = pos;
      o.grow(2 * o.buf.length);
    }
  }

  /**
   * The bytes written at [0, end), handed over without a copy: the scratch buffer itself leaves with
   * the batch (transferred from a worker, or viewed by the events inline) and a fresh one sized for
   * this batch takes its place. Copying the batch out cost more than allocating anew (fresh pages are
   * faulted in either way; the copy also read and wrote every byte once more).
   */
  takeOut(end: number): ArrayBuffer {
    const buf = this.out.handOver(end);
    // allocUnsafeSlow gives every scratch buffer its own ArrayBuffer, starting at 0.
    if (buf.byteOffset !== 0 || end > buf.length) throw new Error('the Framer scratch buffer is not its own ArrayBuffer');
    return buf.buffer;
  }

  /**
   * One record as its own buffer. A record its schema refuses is a defect no retry cures: a
   * non-retriable InfraError, as the registry port's encode throws.
   */
  frame(topic: string, record: unknown): Buffer {
    let end: number;
    try {
      end = this.write(topic, record, 0);
    } catch (err) {
      throw new InfraError(FRAMER_DEPENDENCY, `encode for ${topic} failed: ${errorMessage(err)}`, { retriable: false, cause: err });
    }
    return Buffer.from(this.out.buf.subarray(0, end));
  }
}
