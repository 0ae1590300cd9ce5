import { PROP_CHECKS } from '../../generated/prop-checks';
import { corpusCases, rng } from '../__fixtures__/corpus';
import { madeUpProps } from '../__fixtures__/made-up-props';
import { eventDef, eventDefs } from '../events/event-defs';
import type { EventDef } from './types';
import { validateObject } from './validate';

/**
 * The generated prop checks (schemas/generated/prop-checks.ts) against validateObject, old path
 * against new: for the corpus's props, props made up for every event type and props bent in every
 * field (odd values, unknown keys, client spellings, missing fields, nested objects bent too), a
 * check either hands the props back (undefined: validateObject decides) or returns exactly the
 * value validateObject returns, key order included, where validateObject has nothing to report.
 * services/validator/src/differential.test.ts pins the whole validator path's output.
 */
const cases = corpusCases().filter((c) => eventDef(c.event) !== undefined);

/** Key order matters (it is the record's): compared as JSON text as well as by value. */
const text = (v: unknown) => JSON.stringify(v);

/** Checks one props value both ways; true when the generated check took it. */
function same(def: EventDef, props: unknown): boolean {
  const old = validateObject(def, props, '$.props');
  const clean = PROP_CHECKS.get(def.event)!(props);
  if (clean === undefined) return false;
  expect({ event: def.event, reasons: old.reasons, warnings: old.warnings, unknown: old.unknown }).toEqual({
    event: def.event,
    reasons: [],
    warnings: [],
    unknown: {},
  });
  expect(clean).toEqual(old.value);
  expect(text(clean)).toBe(text(old.value));
  return true;
}

const ODD: readonly unknown[] = [undefined, null, '', 'x', 'View', 0, -1, 1.5, 2 ** 31, 2 ** 53, NaN, true, [], [null], ['a'], {}, { a: 1 }];

function bend(v: unknown, rand: () => number, depth = 0): unknown {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)] as T;
  if (Array.isArray(v)) return v.length > 0 && rand() < 0.5 ? v.map((x, i) => (i === 0 ? bend(x, rand, depth + 1) : x)) : v;
  if (v === null || typeof v !== 'object') return rand() < 0.5 ? pick(ODD) : v;
  const o = { ...(v as Record<string, unknown>) };
  const keys = Object.keys(o);
  const r = rand();
  if (keys.length > 0 && r < 0.5) {
    const k = pick(keys);
    o[k] = depth < 3 && rand() < 0.5 ? bend(o[k], rand, depth + 1) : pick(ODD);
  } else if (keys.length > 0 && r < 0.65) delete o[pick(keys)];
  else if (keys.length > 0 && r < 0.8) {
    // A client's spelling of a key: camelCase or upper case.
    const k = pick(keys);
    o[k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()).replace(/^[a-z]/, (c) => c.toUpperCase())] = o[k];
    delete o[k];
  } else o[pick(['extra', '__proto__', 'constructor'])] = 1;
  return o;
}

describe('the generated prop checks', () => {
  it('take the corpus’s clean props with validateObject’s value, and leave it the rest', () => {
    let taken = 0;
    for (const c of cases) if (same(eventDef(c.event)!, c.props)) taken++;
    expect(taken).toBeGreaterThan(50);
  });

  it('take made-up props of every event type with validateObject’s value', () => {
    const rand = rng(7);
    for (const def of eventDefs) {
      let taken = 0;
      for (let n = 0; n < 20; n++) if (same(def, madeUpProps(def, rand))) taken++;
      expect([def.event, taken > 0]).toEqual([def.event, true]);
    }
  });

  it('leave bent props to validateObject, or give its value', () => {
    const rand = rng(28);
    const sources = [...cases.map((c) => ({ def: eventDef(c.event)!, props: c.props })), ...eventDefs.map((def) => ({ def, props: madeUpProps(def, rand) }))];
    let taken = 0;
    let left = 0;
    for (let n = 0; n < 4000; n++) {
      const { def, props } = sources[Math.floor(rand() * sources.length)]!;
      const bent = bend(bend(structuredClone(props), rand), rand);
      if (same(def, bent)) taken++;
      else left++;
    }
    expect(taken).toBeGreaterThan(100);
    expect(left).toBeGreaterThan(1000);
  });
});
