import { isUtf8 } from 'node:buffer';
import { stringifyWellFormed, type RowBinaryWriter } from '@evp/clickhouse';
import type { SchemaRegistry } from '@evp/core';
import { parseAvroSchema } from '@evp/registry';
import { CANONICAL_FIELDS, ENVELOPE_FORMS, avroFieldName, avroFieldsOf, eventDef, fromAvroValue, type RecordField } from '@evp/schemas';
import { MAX_TIME_MS, MIN_TIME_MS, boundedObjectProblem } from './row-checks';

// Bound once: an imported binding read per row is a getter call under tsx's module interop.
const [minTimeMs, maxTimeMs] = [MIN_TIME_MS, MAX_TIME_MS];
const eventDefOf = eventDef;
const propsFromAvro = fromAvroValue;
const stringify = stringifyWellFormed;

/**
 * An events message straight from its Avro bytes to its RowBinary row (issue 28): the canonical
 * fields are read off the bytes and written as the row's values (strings copied as bytes), with no
 * record object and no string decoded and encoded again; only the event's props (one small record)
 * go through avsc, `fromAvroValue` and JSON as before. The row is byte for byte the one
 * `EVENTS_ROW_BINARY` writes from the decoded record (a test compares them).
 *
 * It reads only what it can vouch for: a writer schema whose canonical fields are the current ones,
 * values that pass every row check, strings that are well-formed UTF-8. Anything else (an older
 * schema, a value a check refuses, a lone surrogate, a `\ud…` escape in JSON text) gives
 * `undefined` and the message takes the general path (registry decode → EVENTS_ROW_BINARY), which
 * writes the row or says exactly why it cannot.
 */

/** What the sink needs of a message besides its row: its identity and who did what. */
export interface EventRowBinary {
  row: Buffer;
  eventId: string;
  appId: string;
  userId: string;
  name: string;
  receivedAtMs: number;
}

/** The message's bytes, the Avro body's first byte (after the wire-format header), the writer of its row. */
/**
 * A value written after the row's last column, known only from the row's app (the sink's
 * `retention_days`): written in the same call, so the row is one view of the writer's chunk, not a
 * view and then a second one with the stamp.
 */
export type RowStamp = (appId: string) => number;

type Transcode = (body: Buffer, from: number, w: RowBinaryWriter, stamp: RowStamp | undefined) => EventRowBinary | undefined;

/** Thrown inside a transcode when the bytes need the general path; never leaves this file. */
const FALLBACK = new Error('general path');
const EMPTY = Buffer.alloc(0);

class Cursor {
  pos = 0;
  /** The last string read: its bytes are buf[start, end). */
  start = 0;
  end = 0;
  /** Set per row: a transcoder keeps one cursor (a row is read in one synchronous call), not one per message. */
  buf: Buffer = EMPTY;

  /** An Avro long (zig-zag varint) that is a safe integer, in at most 8 bytes. */
  long(): number {
    const buf = this.buf;
    let b = buf[this.pos++];
    if (b === undefined) throw FALLBACK;
    if (b < 0x80) return b & 1 ? -(b >> 1) - 1 : b >> 1;
    const neg = b & 1;
    let m = (b & 0x7f) >> 1;
    let scale = 64;
    for (let bytes = 1; b & 0x80; bytes++) {
      if (bytes === 8) throw FALLBACK;
      b = buf[this.pos++];
      if (b === undefined) throw FALLBACK;
      m += (b & 0x7f) * scale;
      scale *= 128;
    }
    if (m > Number.MAX_SAFE_INTEGER) throw FALLBACK;
    return neg ? -m - 1 : m;
  }

  /** A nullable union's branch: false for null, true for the value. */
  present(): boolean {
    const branch = this.long();
    if (branch !== 0 && branch !== 1) throw FALLBACK;
    return branch === 1;
  }

  /** An Avro string (its bytes: start, end), checked to be well-formed UTF-8. */
  string(): void {
    const len = this.long();
    const start = this.pos;
    const end = start + len;
    const buf = this.buf;
    if (len < 0 || end > buf.length) throw FALLBACK;
    this.pos = end;
    this.start = start;
    this.end = end;
    // Strict UTF-8 (no overlong forms, no surrogates): avsc writes a lone surrogate as its 3-byte
    // form (ED A0 80), which the general path reads as three U+FFFD.
    for (let i = start; i < end; i++)
      if ((buf[i] as number) >= 0x80) {
        if (!isUtf8(buf.subarray(i, end))) throw FALLBACK;
        return;
      }
  }
}

/** What this file reads of a parsed avsc type (parseAvroSchema, the registries' own options). */
interface AvroType {
  typeName: string;
  fields?: { name: string; type: AvroType }[];
  itemsType?: AvroType;
  valuesType?: AvroType;
  types?: AvroType[];
  decode(buf: Buffer, pos?: number): { value: unknown; offset: number };
}

/** The shape of an avsc type, names left out: what two schemas must share to be read alike. */
function shape(t: AvroType): string {
  if (t.fields) return `record(${t.fields.map((f) => `${f.name}:${shape(f.type)}`).join(',')})`;
  if (t.itemsType) return `array(${shape(t.itemsType)})`;
  if (t.valuesType) return `map(${shape(t.valuesType)})`;
  if (t.types) return `${t.typeName}(${t.types.map(shape).join(',')})`;
  return t.typeName;
}

const parsed = (schema: object) => parseAvroSchema(schema) as unknown as AvroType;

const CANONICAL_SHAPES = (parsed({ type: 'record', name: 'Canonical', fields: avroFieldsOf(CANONICAL_FIELDS) }).fields ?? []).map(
  (f) => `${f.name}:${shape(f.type)}`,
);

/** Writes bytes [start, end) of a buffer as a RowBinary String. */
function copyString(w: RowBinaryWriter, buf: Buffer, start: number, end: number): void {
  w.uvarint(end - start);
  w.bytes(buf, start, end);
}

/** The fields whose values the sink needs besides the row (their slots in `kept`; received_at is a time). */
const KEPT = ['event_id', 'app_id', 'user_id', 'name', 'received_at'] as const;
const [EVENT_ID, APP_ID, USER_ID, NAME] = [0, 1, 2, 3];

const ENVELOPE_BYTES = ENVELOPE_FORMS.map((s) => Buffer.from(s, 'latin1'));

/** The Enum8 code of an envelope form spelled by bytes [start, end) (1, 2, …), 0 for none. */
function envelopeCode(buf: Buffer, start: number, end: number): number {
  for (let i = 0; i < ENVELOPE_BYTES.length; i++) {
    const form = ENVELOPE_BYTES[i] as Buffer;
    if (form.length !== end - start) continue;
    let k = 0;
    while (k < form.length && form[k] === buf[start + k]) k++;
    if (k === form.length) return i + 1;
  }
  return 0;
}

/** `\u` then `d` in JSON text: a surrogate escape, which the general path rewrites (wellFormedJson). */
function hasSurrogateEscape(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i + 2 < end; i++) if (buf[i] === 0x5c && buf[i + 1] === 0x75 && (buf[i + 2] === 0x64 || buf[i + 2] === 0x44)) return true;
  return false;
}

/**
 * The transcoder for one writer schema, or undefined when its canonical fields are not the current
 * ones (field by field: name and shape) or what follows them is not one nullable record per event.
 */
function transcoderFor(writerSchema: object): Transcode | undefined {
  let writerFields: { name: string; type: AvroType }[];
  try {
    const t = parsed(writerSchema);
    if (!t.fields) return undefined;
    writerFields = t.fields;
  } catch {
    return undefined;
  }
  const n = CANONICAL_SHAPES.length;
  if (writerFields.length < n) return undefined;
  for (let i = 0; i < n; i++) {
    const f = writerFields[i] as (typeof writerFields)[number];
    if (`${f.name}:${shape(f.type)}` !== CANONICAL_SHAPES[i]) return undefined;
  }
  // The event fields: ['null', record] (avsc's unwrapped union), read by avsc as the general path reads them.
  const events: { name: string; type: AvroType }[] = [];
  for (const f of writerFields.slice(n)) {
    const branches = f.type.types;
    const record = branches?.[1];
    if (f.type.typeName !== 'union:unwrapped' || branches?.length !== 2 || branches[0]?.typeName !== 'null' || !record?.fields) return undefined;
    events.push({ name: f.name, type: record });
  }
  const fields = CANONICAL_FIELDS as readonly RecordField[];
  // Values are written as they are read, up to `props`; the fields after it are kept and written
  // after the props (which end the Avro record). That holds for this layout only.
  const tail = fields.slice(fields.findIndex((f) => f.kind === 'props') + 1);
  if (tail.map((f) => `${f.kind}${f.nullable ? '?' : ''}`).join(',') !== 'jsonText?,jsonObject?,reasons') return undefined;
  // One step per field, decided here, not per row.
  const steps = fields.map((f) => {
    const at = avroFieldName(f);
    return {
      kind: f.kind,
      nullable: f.nullable === true,
      nonEmpty: f.nonEmpty === true || f.kind === 'block',
      keep: KEPT.indexOf(at as (typeof KEPT)[number]),
      enumOk: f.kind !== 'enum' || f.symbols === ENVELOPE_FORMS,
    };
  });
  const kept = new Int32Array(2 * KEPT.length);
  const warnings: number[] = [];
  const c = new Cursor();
  return (body, from, w, stamp) => {
    c.buf = body;
    c.pos = from;
    let receivedAtMs = 0;
    let metaStart = -1;
    let metaEnd = -1;
    let clientStart = -1;
    let clientEnd = -1;
    warnings.length = 0;
    try {
      for (let i = 0; i < steps.length; i++) {
        const f = steps[i] as (typeof steps)[number];
        // Nullable(T): the null flag, then T (JSON text kinds are kept for later, flag and all).
        if (f.nullable && f.kind !== 'jsonText' && f.kind !== 'jsonObject') {
          if (!c.present()) {
            w.u8(1);
            continue;
          }
          w.u8(0);
        }
        switch (f.kind) {
          case 'string':
          case 'block': {
            c.string();
            if (f.nonEmpty && c.start === c.end) throw FALLBACK;
            copyString(w, body, c.start, c.end);
            if (f.keep >= 0) {
              kept[2 * f.keep] = c.start;
              kept[2 * f.keep + 1] = c.end;
            }
            break;
          }
          case 'epochMs': {
            const ms = c.long();
            if (ms < minTimeMs || ms > maxTimeMs) throw FALLBACK;
            if (f.keep >= 0) receivedAtMs = ms;
            w.i64(ms);
            break;
          }
          case 'int': {
            const v = c.long();
            if (v < -0x80000000 || v > 0x7fffffff) throw FALLBACK;
            w.i32(v);
            break;
          }
          case 'boolean': {
            const b = body[c.pos++];
            if (b !== 0 && b !== 1) throw FALLBACK;
            w.u8(b);
            break;
          }
          case 'enum': {
            c.string();
            const code = f.enumOk ? envelopeCode(body, c.start, c.end) : 0;
            if (code === 0) throw FALLBACK;
            w.i8(code);
            break;
          }
          case 'props':
            // Written after the event fields are read (they end the record).
            break;
          case 'jsonText':
          case 'jsonObject': {
            if (!c.present()) break;
            c.string();
            if (hasSurrogateEscape(body, c.start, c.end) || (f.kind === 'jsonObject' && boundedObjectProblem(body, c.start, c.end) !== '')) throw FALLBACK;
            if (f.kind === 'jsonText') {
              metaStart = c.start;
              metaEnd = c.end;
            } else {
              clientStart = c.start;
              clientEnd = c.end;
            }
            break;
          }
          case 'reasons':
            for (let count = c.long(); count !== 0; count = c.long()) {
              if (count < 0) {
                count = -count;
                c.long(); // the block's size in bytes
              }
              for (let k = 0; k < 3 * count; k++) {
                c.string();
                warnings.push(c.start, c.end);
              }
            }
            break;
          default:
            throw FALLBACK;
        }
      }
      // The props: the event field named by the event's definition (eventProps in record-columns.ts).
      const name = body.toString('utf8', kept[2 * NAME], kept[2 * NAME + 1]);
      const def = eventDefOf(name);
      let props: Record<string, unknown> | null = null;
      for (let i = 0; i < events.length; i++) {
        if (!c.present()) continue;
        const e = events[i] as (typeof events)[number];
        const { value, offset } = e.type.decode(body, c.pos) as { value: Record<string, unknown>; offset: number };
        if (offset < 0) throw FALLBACK;
        c.pos = offset;
        if (def && e.name === def.event) props = value;
      }
      if (c.pos !== body.length) throw FALLBACK;
      w.string(def && props ? stringify(propsFromAvro(def, props)) : '{}');
      if (metaStart < 0) w.u8(1);
      else {
        w.u8(0);
        copyString(w, body, metaStart, metaEnd);
      }
      if (clientStart < 0) w.string('{}');
      else copyString(w, body, clientStart, clientEnd);
      w.uvarint(warnings.length / 6);
      for (let k = 0; k < warnings.length; k += 2) copyString(w, body, warnings[k] as number, warnings[k + 1] as number);
      const appId = body.toString('utf8', kept[2 * APP_ID], kept[2 * APP_ID + 1]);
      if (stamp !== undefined) w.u16(stamp(appId));
      return {
        row: w.row(),
        eventId: body.toString('utf8', kept[2 * EVENT_ID], kept[2 * EVENT_ID + 1]),
        appId,
        userId: body.toString('utf8', kept[2 * USER_ID], kept[2 * USER_ID + 1]),
        name,
        receivedAtMs,
      };
    } catch {
      // FALLBACK, or avsc refusing the props' bytes: the general path says what is wrong.
      w.discardRow();
      return undefined;
    } finally {
      // The cursor does not keep the message's bytes alive until the next row.
      c.buf = EMPTY;
    }
  };
}

/** A writer schema's transcoder: null when that schema takes the general path; a promise while asked. */
type Known = Transcode | null | Promise<Transcode | null>;

/** Confluent's wire format: magic byte 0, a 4-byte big-endian schema id, the Avro body. */
const HEADER = 5;

/**
 * Events messages → their RowBinary rows, or undefined for the general path (see above), with the
 * transcoders of the writer schemas met so far (one reader per sink: schema ids are its registry's).
 * A registry that cannot say what the writer schema is leaves the message to the general path too,
 * which reports it as that path does (an outage is retriable there).
 */
export class EventRowBinaryReader {
  /** By writer schema id: null when that schema takes the general path; a promise while asked. */
  private readonly transcoders = new Map<number, Known>();

  constructor(private readonly registry: SchemaRegistry) {}

  /** Synchronous once the writer schema's transcoder is known (every message but the first of a schema): no await per message. */
  fromBytes(value: Buffer, w: RowBinaryWriter, stamp?: RowStamp): EventRowBinary | undefined | Promise<EventRowBinary | undefined> {
    if (value.length < HEADER || value[0] !== 0) return undefined;
    const schemaId = value.readInt32BE(1);
    let known = this.transcoders.get(schemaId);
    if (known === undefined) {
      known = this.registry.schemaById(schemaId).then(
        (schema) => {
          const t = transcoderFor(schema) ?? null;
          this.transcoders.set(schemaId, t);
          return t;
        },
        () => {
          // Not remembered: the next message asks again (the registry may be back).
          this.transcoders.delete(schemaId);
          return null;
        },
      );
      this.transcoders.set(schemaId, known);
    }
    if (known instanceof Promise) return known.then((t) => (t ? t(value, HEADER, w, stamp) : undefined));
    return known ? known(value, HEADER, w, stamp) : undefined;
  }
}
