import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isObject } from '@evp/contract';
import fc from 'fast-check';
import { ctx, currentEnvelope, earlierEnvelope } from '../__fixtures__/envelopes';
import { eventDef } from '../events/event-defs';
import { normalizeUpload } from './normalize';
import type { NormalizeResult } from './types';
import { clientQuirk } from '../quirks';
import type { RuleName } from '../rules/registry';

/**
 * Property-based checks of the validator's two promises: it never throws, and every submitted event
 * is accounted for exactly once (accepted, or inside one rejection's event_count).
 */

/**
 * Events submitted in a body: the `data` items of each envelope. An envelope rejected as a whole
 * counts max(data.length, 1): a malformed envelope with no readable events still stands for one
 * submitted thing, so it must show up in the counts (docs/data-contract.md, Rejected records).
 */
function checkAccounting(body: unknown, r: NormalizeResult) {
  const envelopes = Array.isArray(body) ? body : [body];
  const rejectedEnvelopes = new Set(r.rejected.filter((x) => x.kind === 'envelope_violation').map((x) => x.envelope_index));
  let eventsIn = 0;
  envelopes.forEach((env, i) => {
    const n = isObject(env) && Array.isArray(env.data) ? env.data.length : 0;
    eventsIn += rejectedEnvelopes.has(Array.isArray(body) ? i : null) ? Math.max(n, 1) : n;
  });
  const rejectedCount = r.rejected.reduce((s, x) => s + x.event_count, 0);
  expect(r.accepted.length + rejectedCount).toBe(eventsIn);
  for (const x of r.rejected) {
    expect(x.reasons.length).toBeGreaterThan(0);
    expect(['envelope_violation', 'schema_violation', 'size_violation']).toContain(x.kind);
    for (const e of x.reasons) expect(typeof e.path === 'string' && e.path.startsWith('$') && typeof e.rule === 'string').toBe(true);
  }
  for (const a of r.accepted) {
    expect(eventDef(a.event.name)?.event).toBe(a.event.name);
    expect(Number.isSafeInteger(a.event.time)).toBe(true);
  }
  // Everything the validator produces must be serialisable for the bus.
  expect(() => JSON.stringify(r)).not.toThrow();
}

const run = (body: unknown) => {
  let r: NormalizeResult | undefined;
  expect(() => {
    r = normalizeUpload(body, ctx);
  }).not.toThrow();
  checkAccounting(body, r!);
};

// Valid logs of the corpus, in both forms, as the seed of mutated envelopes.
const dir = join(__dirname, '../../corpus/events');
const validCases = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .flatMap(
    (f) =>
      (
        JSON.parse(readFileSync(join(dir, f), 'utf8')) as {
          valid: { event: string; sent?: string; forms?: string[]; props: Record<string, unknown>; warnings?: { rule: string }[] }[];
        }
      ).valid,
  )
  // The fixture envelopes' sdks are no known client: the seed is the cases that need no client quirk
  // (quirks/gate.ts), of events the spec defines.
  .filter(
    (c) =>
      eventDef(c.event)!.origin === undefined &&
      (c.warnings ?? []).every((w) => {
        const q = clientQuirk(w.rule as RuleName);
        return q === undefined || q.gate === 'every';
      }),
  );
// A case may hold for one form only (corpus README: `forms`).
const currentCases = validCases.filter((c) => c.forms?.includes('current') ?? true);
const earlierCases = validCases.filter((c) => c.forms?.includes('earlier') ?? true);
const currentLog = (c: (typeof validCases)[number]) => ({ time: '2023-11-15 03:43:20.123', __ol: true, name: c.sent ?? c.event, property: 'p', ctx: c.props });
const earlierLog = (c: (typeof validCases)[number]) => ({
  block: eventDef(c.event)!.block,
  ol: true,
  ts: '2023-11-14T22:13:20.123Z',
  type: c.sent ?? c.event,
  props: c.props,
});

/** Every container (object or array) in a JSON value, with a setter/deleter for its entries. */
function containers(v: unknown, out: unknown[] = []): unknown[] {
  if (typeof v === 'object' && v !== null) {
    out.push(v);
    for (const x of Object.values(v)) containers(x, out);
  }
  return out;
}

type Mutation = { at: number; key: number; op: 'replace' | 'delete' | 'insert'; value: unknown; name: string };

function mutate(value: unknown, mutations: Mutation[]): unknown {
  const copy = structuredClone(value);
  for (const { value: shared, ...m } of mutations) {
    // fast-check reuses generated values while shrinking: never insert (and later mutate) them in place.
    const value = structuredClone(shared);
    const nodes = containers(copy);
    const node = nodes[m.at % nodes.length] as Record<string, unknown> | unknown[];
    const keys = Object.keys(node);
    if (Array.isArray(node)) {
      const i = keys.length === 0 ? 0 : m.key % keys.length;
      if (m.op === 'delete') node.splice(i, 1);
      else if (m.op === 'insert') node.splice(i, 0, value);
      else node[i] = value;
    } else {
      const k = keys.length === 0 || m.op === 'insert' ? m.name : (keys[m.key % keys.length] as string);
      if (m.op === 'delete') delete node[k];
      else node[k] = value;
    }
  }
  return copy;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  key: fc.nat(),
  op: fc.constantFrom('replace' as const, 'delete' as const, 'insert' as const),
  value: fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    // Values that sit near the contract's edges: wrong-but-close types and spec-looking strings.
    fc.constantFrom(null, 1.5, -1, 0, 2147483648, '2023-11-15T00:00:00Z', '', 'error', 'group', 'receipt', [], {}, true),
  ),
  name: fc.oneof(fc.string(), fc.constantFrom('meta', '__ol', 'ts', 'time', 'msg_id', 'type', '__proto__', 'constructor', 'data', 'block')),
});

const seedEnvelope: fc.Arbitrary<unknown> = fc.tuple(fc.boolean(), fc.array(fc.nat(), { minLength: 1, maxLength: 6 })).map(([current, picks]) => {
  const cases = current ? currentCases : earlierCases;
  const logs = picks.map((i) => cases[i % cases.length]!);
  return current ? currentEnvelope(logs.map(currentLog)) : earlierEnvelope(logs.map(earlierLog));
});

describe('normalizeUpload properties', () => {
  it('the seed envelopes are valid', () => {
    const r = normalizeUpload([currentEnvelope(currentCases.map(currentLog)), earlierEnvelope(earlierCases.map(earlierLog))], ctx);
    expect(r.rejected).toEqual([]);
    expect(r.accepted).toHaveLength(currentCases.length + earlierCases.length);
  });

  it('never throws and accounts for every event, for arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (body) => run(body)),
      { numRuns: 500 },
    );
  });

  it('never throws and accounts for every event, for arbitrary envelope-shaped JSON', () => {
    const anyLog = fc.dictionary(
      fc.constantFrom('time', 'ts', '__ol', 'ol', 'name', 'type', 'block', 'property', 'ctx', 'props', 'meta'),
      fc.jsonValue({ maxDepth: 2 }),
    );
    const env = fc.record(
      {
        id: fc.jsonValue({ maxDepth: 1 }),
        tz: fc.oneof(fc.constantFrom('+05:30', 'Z', '+0000', 'UTC+5'), fc.string()),
        u_id: fc.string(),
        s_id: fc.string(),
        internal: fc.jsonValue({ maxDepth: 2 }),
        data: fc.oneof(fc.array(anyLog, { maxLength: 5 }), fc.jsonValue({ maxDepth: 1 })),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(env, fc.array(env, { maxLength: 3 })), (body) => run(body)),
      { numRuns: 500 },
    );
  });

  it('never throws and accounts for every event, for mutated valid envelopes', () => {
    const body = fc.tuple(fc.array(seedEnvelope, { minLength: 1, maxLength: 3 }), fc.array(mutation, { minLength: 1, maxLength: 4 }), fc.boolean());
    fc.assert(
      fc.property(body, ([envs, mutations, asArray]) => run(mutate(asArray ? envs : envs[0], mutations))),
      { numRuns: 1000 },
    );
  });
});
