import { BLOCKS } from '@evp/core';
import { parseAvroSchema } from '@evp/registry';
import { ctx, currentEnvelope, earlierEnvelope } from '../__fixtures__/envelopes';
import { corpusCases, rng } from '../__fixtures__/corpus';
import { madeUpProps } from '../__fixtures__/made-up-props';
import type { CanonicalEvent } from '../canonical';
import { eventDef, eventDefs } from '../events/event-defs';
import { normalizeUpload } from '../normalize/normalize';
import { AvroOut } from './avro-out';
import { blockEventSchema } from './block-schema';
import { canonicalToAvro } from './canonical-codec';
import { writeEventAvro } from './event-avro';

/**
 * The generated event writers (schemas/generated/event-writers.ts) against avsc, old path against
 * new: every event the corpus makes, in both envelope forms, is written with the same bytes avsc
 * writes for canonicalToAvro(e), by the generated writer (no silent fallback); and events bent in
 * every field (odd types, strings avsc writes its own way, numbers out of range) are either written
 * with avsc's bytes or handed back to avsc, which then refuses them (the validator's processing_error).
 * services/validator/src/differential.test.ts pins the framed bytes of the whole validator path.
 */
const types = new Map(BLOCKS.map((b) => [b, parseAvroSchema(blockEventSchema(b) as object)]));
const avsc = (e: CanonicalEvent): Buffer => types.get(e.block)!.toBuffer(canonicalToAvro(e));
const generated = (e: CanonicalEvent, o = new AvroOut(64)): Buffer | undefined => (writeEventAvro(o, e) ? Buffer.from(o.buf.subarray(0, o.pos)) : undefined);

const cases = corpusCases();

/** Every accepted event of the corpus, each case sent in both forms. */
function corpusEvents(): CanonicalEvent[] {
  const out: CanonicalEvent[] = [];
  for (const c of cases) {
    const name = c.sent ?? c.event;
    const props = c.meta !== undefined ? { ...c.props, meta: c.meta } : c.props;
    const current = currentEnvelope([{ time: '2023-11-15 03:43:20.123', name, property: 'p', ctx: { __ol: true, ...props } }]);
    const earlier = earlierEnvelope([{ block: eventDef(c.event)?.block ?? 'core', ol: false, ts: '2023-11-14T22:13:20.123Z', type: name, props }]);
    for (const body of [current, earlier]) for (const a of normalizeUpload(body, ctx).accepted) out.push(a.event);
  }
  return out;
}

const ODD: readonly unknown[] = [
  undefined,
  null,
  '',
  'é\u2028"\\\n',
  '\ud800x',
  'ü'.repeat(40),
  '\ud83d\ude00'.repeat(20),
  'a'.repeat(70),
  'é'.repeat(70),
  1.5,
  -1,
  2 ** 31,
  2 ** 40,
  -(2 ** 52),
  2 ** 53,
  NaN,
  true,
  [],
  ['a', 1],
  [{ a: 1 }, null],
  {},
  { a: 'x' },
  { __extra: { z: 1 } },
];

describe('the generated event writers', () => {
  const events = corpusEvents();

  it('write every corpus event as avsc writes its record, without falling back', () => {
    expect(events.length).toBe(156);
    const names = new Set<string>();
    // One buffer for all, as the validator's Framer: the client JSON kept from one event to the next.
    const o = new AvroOut(64);
    for (const e of events) {
      names.add(e.name);
      o.pos = 0;
      expect(generated(e, o)).toEqual(avsc(e));
    }
    // The event types with a valid case the fixtures' (unknown) clients may send.
    expect(names.size).toBe(38);
  });

  it('write an event of every type, its props made up from its definition, as avsc writes its record', () => {
    const rand = rng(49);
    const base = events[0]!;
    for (const def of eventDefs) {
      for (let n = 0; n < 20; n++) {
        const { zz_unknown, ...props } = madeUpProps(def, rand);
        const e = { ...base, block: def.block, name: def.event, props: zz_unknown === undefined ? props : { ...props, __extra: { zz_unknown } } };
        expect([def.event, generated(e)]).toEqual([def.event, avsc(e)]);
      }
    }
  });

  it('write an event bent in any field as avsc does, or hand it back to avsc, which refuses it', () => {
    const rand = rng(28);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)] as T;
    let written = 0;
    let refused = 0;
    // One buffer throughout, so the kept runs (an envelope's facts, its client JSON) meet bent values too.
    const o = new AvroOut(64);
    for (let n = 0; n < 3000; n++) {
      const e = structuredClone(pick(events)) as unknown as Record<string, unknown>;
      const props = e.props as Record<string, unknown>;
      const propKeys = Object.keys(eventDef(e.name as string)!.fields);
      for (let k = 0; k < 1 + Math.floor(rand() * 2); k++) {
        if (rand() < 0.6 && propKeys.length > 0) props[pick(propKeys)] = pick(ODD);
        else e[pick(Object.keys(e))] = pick(ODD);
      }
      const event = e as unknown as CanonicalEvent;
      let expected: Buffer | undefined;
      try {
        expected = avsc(event);
      } catch {
        expected = undefined;
      }
      o.pos = 0;
      const got = generated(event, o);
      if (expected === undefined) {
        expect(got).toBeUndefined();
        refused++;
      } else {
        expect(got).toEqual(expected);
        written++;
      }
    }
    expect(written).toBeGreaterThan(500);
    expect(refused).toBeGreaterThan(500);
  });

  it('grow the buffer and keep what was written before', () => {
    const o = new AvroOut(8);
    o.str('head');
    const e = events[0]!;
    expect(writeEventAvro(o, e)).toBe(true);
    expect(Buffer.from(o.buf.subarray(0, o.pos))).toEqual(Buffer.concat([Buffer.from([8, ...Buffer.from('head')]), avsc(e)]));
  });
});
