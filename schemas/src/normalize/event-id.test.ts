import fc from 'fast-check';
import { sha256Hex } from '@evp/core';
import { corpusCases, rng } from '../__fixtures__/corpus';
import { madeUpProps } from '../__fixtures__/made-up-props';
import { eventDefs } from '../events/event-defs';
import { eventId, eventIdText, stableStringify, type EventIdParts } from './event-id';

/** The original, obviously-correct form; the loop version on the hot path must print the same text. */
function reference(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(reference).join(',')}]`;
  const entries = Object.entries(v as Record<string, unknown>)
    .filter(([, x]) => x !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${reference(x)}`).join(',')}}`;
}

describe('stableStringify (part of every event id, so its text must never change)', () => {
  it('matches the reference form for arbitrary values', () => {
    fc.assert(
      fc.property(fc.anything({ withSparseArray: true, withNullPrototype: true, withDate: true, withBoxedValues: true, withObjectString: true }), (v) => {
        expect(stableStringify(v)).toBe(reference(v));
      }),
      { numRuns: 2000 },
    );
  });

  it('sorts keys, drops undefined members, prints holes as nothing', () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(stableStringify({ b: [1, , undefined], a: undefined, é: 1, Z: 2, '10': 3, '9': 4 })).toBe('{"10":3,"9":4,"Z":2,"b":[1,,null],"é":1}');
  });

  it('keeps event ids stable (value computed with the original implementation)', () => {
    const content = { property: 'p', props: { y: 1, x: [1, 2], n: { b: 'é', a: null } }, meta: { z: [true] } };
    expect(eventId({ appId: 'a', userId: 'u', sessionId: 's', name: 'page', time: 1, content })).toBe('b64db5cf3fb3b4d617656a4f4382bd30');
  });

  it('ignores key order', () => {
    const id = eventId({ appId: 'a', userId: 'u', sessionId: 's', name: 'page', time: 1, content: { property: 'p', props: { y: 1, x: [1, 2] }, meta: null } });
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(id).toBe(
      eventId({ appId: 'a', userId: 'u', sessionId: 's', name: 'page', time: 1, content: { meta: null, props: { x: [1, 2], y: 1 }, property: 'p' } }),
    );
  });

  it('hashes exactly the UTF-8 bytes of its text (the ids written as bytes equal the string form, any input)', () => {
    const text = fc.oneof(fc.string(), fc.string16bits(), fc.fullUnicodeString(), fc.constantFrom('', 'app-1', 'é', '\ud800', 'a"b\\c\n'));
    const value = fc.oneof(
      fc.anything({ withSparseArray: true, withNullPrototype: true, withDate: true, withBoxedValues: true, withObjectString: true }),
      fc.dictionary(fc.string16bits(), fc.oneof(fc.string16bits(), fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined))),
      fc.string16bits(),
    );
    const time = fc.oneof(
      fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
      fc.double(),
      fc.integer({ min: -1e13, max: 0 }),
      fc.constantFrom(0, 9, 10, 1709280000000, 2 ** 53, 1e21),
    );
    const parts = fc.record({
      appId: text,
      userId: text,
      sessionId: text,
      name: text,
      time,
      content: fc.record({
        property: fc.oneof(text, fc.constant(null), fc.constant(undefined)),
        props: value,
        meta: fc.oneof(value, fc.constant(null), fc.constant(undefined)),
      }),
    });
    // Runs of events of one envelope (same app, user and session): the kept prefix meets other names and times.
    fc.assert(
      fc.property(parts, fc.array(fc.tuple(text, time, value), { maxLength: 4 }), (p: EventIdParts, more) => {
        expect(eventId(p)).toBe(sha256Hex(eventIdText(p)).slice(0, 32));
        for (const [name, t, props] of more) {
          const next: EventIdParts = { ...p, name, time: t, content: { ...p.content, props } };
          expect(eventId(next)).toBe(sha256Hex(eventIdText(next)).slice(0, 32));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('gives the string form’s id for every corpus case, made-up props of every event type and bent props', () => {
    const rand = rng(28);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
    const bend = (props: Record<string, unknown>): Record<string, unknown> => {
      const keys = Object.keys(props);
      const out: Record<string, unknown> = {};
      // Any key order: the text is sorted either way.
      for (const k of [...keys].sort(() => rand() - 0.5)) out[k] = props[k];
      switch (Math.floor(rand() * 6)) {
        case 0:
          out.unknown_key = 1;
          break;
        case 1:
          if (keys.length > 0) out[pick(keys)] = undefined;
          break;
        case 2:
          if (keys.length > 0) out[pick(keys)] = { z: [1, 'é', null], a: { '"q"': true } };
          break;
        case 3:
          return Object.assign(Object.create(null) as Record<string, unknown>, out);
        default:
      }
      return out;
    };
    const check = (name: string, props: Record<string, unknown>, meta: unknown) => {
      const p: EventIdParts = { appId: 'app-1', userId: 'u', sessionId: 's', name, time: 1709280000123, content: { property: 'screen', props, meta } };
      expect(eventId(p)).toBe(sha256Hex(eventIdText(p)).slice(0, 32));
    };
    for (const c of corpusCases()) {
      check(c.event, c.props, c.meta ?? null);
      check(c.event, bend(c.props), null);
    }
    for (const def of eventDefs) {
      for (let i = 0; i < 20; i++) {
        const props = madeUpProps(def, rand);
        check(def.event, props, null);
        check(def.event, bend(props), { k: props });
      }
    }
  });
});
