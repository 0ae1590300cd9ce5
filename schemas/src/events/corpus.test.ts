import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import avro from 'avsc';
import { BLOCKS, type Block } from '@evp/core';
import { blockEventSchema } from '../avro/block-schema';
import { canonicalFromAvro, canonicalToAvro } from '../avro/canonical-codec';
import { ctx, currentEnvelope, earlierEnvelope } from '../__fixtures__/envelopes';
import { normalizeUpload } from '../normalize/normalize';
import { eventDef, eventDefs } from './event-defs';
import { inRange, versionParts, type ClientLine } from '../clients/identity';
import { clientQuirk, type GateEntry } from '../quirks';
import { RULES, type RuleName } from '../rules/registry';

/**
 * Runs the corpus (schemas/corpus/events/*.json, see its README) through the validator in both
 * envelope forms and checks exact outcomes, then round-trips every accepted event through Avro.
 */
interface Problem {
  path: string;
  rule: string;
}
interface ValidCase {
  event: string;
  sent?: string;
  /** The envelope forms the case holds for (default both): a quirk only some clients are allowed. */
  forms?: Form[];
  note?: string;
  props: Record<string, unknown>;
  meta?: unknown;
  expect?: Record<string, unknown>;
  warnings?: Problem[];
}
interface InvalidCase {
  event: string;
  note?: string;
  props: Record<string, unknown>;
  errors: Problem[];
}

const dir = join(__dirname, '../../corpus/events');
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
const corpus = files.map((f) => ({ file: f, ...(JSON.parse(readFileSync(join(dir, f), 'utf8')) as { valid: ValidCase[]; invalid: InvalidCase[] }) }));
const valid = corpus.flatMap((c) => c.valid.map((v) => ({ file: c.file, ...v })));
const invalid = corpus.flatMap((c) => c.invalid.map((v) => ({ file: c.file, ...v })));

const forms = ['current', 'earlier'] as const;
type Form = (typeof forms)[number];

/**
 * Who sends a case. The fixture envelopes' sdks (`android/2.4.1`, `android_2.0.0`) are no known
 * client: they meet the spec. A case whose warnings are client quirks is sent by a client its gates
 * name in that form (clients/identity.ts): the older iOS line in the earlier form, the Kenkai client
 * (or the Unity one) in the current form; a form without such a client does not hold the case.
 */
interface Client {
  line: ClientLine;
  /** The `sdk` it sends. */
  sdk: string;
}
type Sender = Client | null;
/** The real clients of each form, the versions of the corpus (schemas/corpus/clients) newest first. */
const CLIENTS_OF_FORM: Record<Form, readonly Client[]> = {
  earlier: ['1.2.3', '1.1.13', '1.1.8', '1.1.4', '1.0.3', '0.9.7', '0.5.3'].map((v) => ({ line: 'ios-cf' as const, sdk: `ios/${v}` })),
  current: [
    { line: 'ios-kenkai', sdk: 'ios/1.0.1' },
    { line: 'unity-ios', sdk: 'ios/1.0.10' },
  ],
};

/** Whether a quirk gate admits a client. */
const admits = (gate: readonly GateEntry[], c: Client) =>
  gate.some((e) =>
    typeof e === 'string' ? e === c.line : e.line === c.line && inRange(versionParts(c.sdk.slice(4))!, versionParts(e.from)!, versionParts(e.to)!),
  );

/** The quirk gates a case's warnings need (`every` and non-quirk rules need none). */
function gatesOf(c: { warnings?: Problem[] }): (readonly GateEntry[])[] {
  return (c.warnings ?? []).flatMap((w) => {
    const q = clientQuirk(w.rule as RuleName);
    return q === undefined || q.gate === 'every' ? [] : [q.gate];
  });
}

/** The client that sends a valid case in a form: null (a spec client) when it needs no quirk, undefined when no client of that form may. */
function senderFor(form: Form, c: { warnings?: Problem[] }): Sender | undefined {
  const gates = gatesOf(c);
  if (gates.length === 0) return null;
  return CLIENTS_OF_FORM[form].find((client) => gates.every((g) => admits(g, client)));
}

/** One log of the given form; `meta` where each form carries it (log level / inside props). */
function envelopeFor(form: Form, c: { event: string; sent?: string; props: Record<string, unknown>; meta?: unknown }, sender: Sender = null) {
  const name = c.sent ?? c.event;
  const block = eventDef(c.event)!.block;
  if (form === 'current') {
    const log = { time: '2023-11-15 03:43:20.123', __ol: true, name, property: 'p', ctx: c.props, ...(c.meta !== undefined ? { meta: c.meta } : {}) };
    const env = currentEnvelope([log]);
    return sender === null ? env : { ...env, internal: { ...env.internal, sdk: sender.sdk } };
  }
  const props = c.meta !== undefined ? { ...c.props, meta: c.meta } : c.props;
  const env = earlierEnvelope([{ block, ol: false, ts: '2023-11-14T22:13:20.123Z', type: name, props }]);
  return sender === null ? env : { ...env, sdk: sender.sdk };
}

/** A corpus path relative to the props; `@name` is the log's event name (current `name`, earlier `type`). */
const prefix = (form: Form, path: string) =>
  path === '@name' ? `$.data[0].${form === 'current' ? 'name' : 'type'}` : `$.data[0].${form === 'current' ? 'ctx' : 'props'}${path ? `.${path}` : ''}`;

const label = (c: { file: string; event: string; note?: string; sent?: string }, i: number) =>
  `${c.file} #${i} ${c.event}${c.sent ? ` (sent as ${c.sent})` : ''}${c.note ? `: ${c.note}` : ''}`;

/** Every valid case in each form that holds it, with the client that sends it there. */
const validCases = valid.flatMap((c, i) =>
  (c.forms ?? forms).flatMap((form) => {
    const sender = senderFor(form, c);
    return sender === undefined ? [] : [[`${form} ${label(c, i)}${sender ? ` from ${sender.sdk}` : ''}`, form, c, sender] as const];
  }),
);

describe('event corpus: valid examples are accepted with exact props, in both envelope forms', () => {
  it.each(validCases)('%s', (_l, form, c, sender) => {
    const r = normalizeUpload(envelopeFor(form, c, sender), ctx);
    expect(r.rejected).toEqual([]);
    expect(r.accepted).toHaveLength(1);
    const { event, warnings } = r.accepted[0]!;
    expect(event.name).toBe(c.event);
    expect(event.sent_name).toBe(c.sent ?? null);
    expect(event.block).toBe(eventDef(c.event)!.block);
    expect(event.time).toBe(Date.UTC(2023, 10, 14, 22, 13, 20, 123));
    expect(event.props).toEqual(c.expect ?? c.props);
    expect(event.meta).toEqual(c.meta ?? null);
    expect(warnings.map((w) => ({ path: w.path, rule: w.rule }))).toEqual((c.warnings ?? []).map((w) => ({ path: prefix(form, w.path), rule: w.rule })));
  });
});

describe('event corpus: invalid examples are rejected with exact rules and paths, in both envelope forms', () => {
  // An event the spec lacks is sent by a client it is defined from (event_not_in_spec is gated too):
  // the case is about its other rules.
  const notInSpec = { warnings: [{ path: '', rule: 'event_not_in_spec' }] };
  const cases = invalid.flatMap((c, i) =>
    forms.map((form) => [`${form} ${label(c, i)}`, form, c, eventDef(c.event)!.origin === undefined ? null : senderFor(form, notInSpec)!] as const),
  );
  it.each(cases)('%s', (_l, form, c, sender) => {
    const r = normalizeUpload(envelopeFor(form, c, sender), ctx);
    expect(r.accepted).toEqual([]);
    expect(r.rejected).toHaveLength(1);
    expect(r.rejected[0]).toMatchObject({ kind: 'schema_violation', event_count: 1, event_index: 0 });
    expect(r.rejected[0]!.reasons.map((e) => ({ path: e.path, rule: e.rule }))).toEqual(c.errors.map((e) => ({ path: prefix(form, e.path), rule: e.rule })));
  });
});

describe('event corpus: a client quirk from any other client meets the spec', () => {
  // The same valid cases that need a quirk, sent by a client no gate names (the fixtures' android
  // sdks): each quirk whose spec rule is an error rejects the event under that rule at the quirk's
  // path, all of them in one answer; a quirk whose spec rule is a warning is reported under it.
  const cases = valid.flatMap((c, i) =>
    (c.forms ?? forms).flatMap((form) => (senderFor(form, c) !== null ? [[`${form} ${label(c, i)} from android`, form, c] as const] : [])),
  );
  it.each(cases)('%s', (_l, form, c) => {
    const r = normalizeUpload(envelopeFor(form, c), ctx);
    const expected = (c.warnings ?? []).flatMap((w) => {
      const q = clientQuirk(w.rule as RuleName);
      return q === undefined || q.gate === 'every' || RULES[q.otherwise].severity !== 'error' ? [] : [{ path: prefix(form, w.path), rule: q.otherwise }];
    });
    expect(expected.length).toBeGreaterThan(0);
    expect(r.accepted).toEqual([]);
    const errors = r.rejected[0]!.reasons.map((e) => ({ path: e.path, rule: e.rule }));
    for (const e of expected) expect(errors).toContainEqual(e);
  });
});

describe('event corpus coverage', () => {
  it('has a valid example of every event type', () => {
    const covered = new Set(valid.map((c) => c.event));
    expect(eventDefs.map((d) => d.event).filter((e) => !covered.has(e))).toEqual([]);
  });

  it('has an invalid example of every event type', () => {
    const covered = new Set(invalid.map((c) => c.event));
    expect(eventDefs.map((d) => d.event).filter((e) => !covered.has(e))).toEqual([]);
  });

  it('has an invalid example of every rule beyond types', () => {
    const rules = new Set(invalid.flatMap((c) => c.errors.map((e) => e.rule)));
    const expected = [
      'required',
      'type',
      'enum',
      'range',
      'address_site_or_country',
      'image_url_or_base64',
      'message_body_shape',
      'details_only_for_error',
      'acc_points_for_add',
      'redeem_for_redeem',
      'response_for_submit',
      'item_info_iff_successful',
      'currency_code',
      'time_format',
      'start_time_only_for_open',
      'time_zero_for_image',
      'total_points_below_acc_points',
    ];
    expect(expected.filter((r) => !rules.has(r))).toEqual([]);
  });

  it('has a valid example of every client-quirk warning of a rule beyond types', () => {
    const rules = new Set(valid.flatMap((c) => (c.warnings ?? []).map((w) => w.rule)));
    const expected = ['currency_code_ios_list', 'redeem_currency_empty', 'total_points_zero_default'];
    expect(expected.filter((r) => !rules.has(r))).toEqual([]);
  });
});

describe('every required field is enforced', () => {
  // Generated from the corpus: dropping any required field without a default from a valid example
  // rejects the event with `required` at that field, in both envelope forms, for a client no quirk
  // gate names (the fixtures' android sdks) — and for the older iOS line (ios/1.2.3, earlier form) the
  // fields it leaves out: a `default` its omission means (FieldDef.client.default) is applied with the
  // warning `default_applied`, a field it leaves out (`client.mayOmit`) is accepted with the warning
  // `required_missing`.
  // Receipts sent as `group` are excluded: without msg_id they are, rightly, no longer read as receipts;
  // so are app events sent under their own name (read as `custom` only with that name in props).
  const cases = valid.flatMap((c, i) => {
    const def = eventDef(c.event)!;
    if (c.sent === 'group' || (c.event === 'custom' && c.sent !== undefined)) return [];
    return Object.entries(def.fields)
      .filter(([name, f]) => f.required && f.default === undefined && name in c.props)
      .flatMap(([name, f]) =>
        forms.flatMap((form) => {
          const spec = [`${form} ${label(c, i)} without ${name}: required`, form, c, name, 'required', null] as const;
          if (form !== 'earlier' || c.warnings !== undefined) return [spec];
          const outcome = f.client?.default ? 'default_applied' : f.client?.mayOmit?.by.includes('ios-cf') ? 'required_missing' : 'required';
          // causalfoundry/ios-sdk 0.5.3: the delivered step without is_urgent is of 0.4.3–0.5.3 (default_applied's gate).
          const cf: Client = { line: 'ios-cf', sdk: 'ios/0.5.3' };
          return [spec, [`${form} ${label(c, i)} without ${name} from ios/0.5.3: ${outcome}`, form, c, name, outcome, cf] as const];
        }),
      );
  });
  it.each(cases)('%s', (_l, form, c, name, outcome, sender) => {
    const { [name]: _dropped, ...props } = c.props;
    const r = normalizeUpload(envelopeFor(form, { ...c, props }, sender), ctx);
    if (outcome === 'required') {
      expect(r.accepted).toEqual([]);
      expect(r.rejected[0]!.reasons).toContainEqual(expect.objectContaining({ path: prefix(form, name), rule: 'required' }));
    } else {
      expect(r.rejected).toEqual([]);
      expect(r.accepted[0]!.warnings).toContainEqual(expect.objectContaining({ path: prefix(form, name), rule: outcome }));
    }
  });
});

/** Canonical props with nested `__extra` folded in: the Avro form keeps extras as JSON beside the fields. */
function foldExtras(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(foldExtras);
  if (typeof v !== 'object' || v === null) return v;
  const { __extra, ...rest } = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(rest)) out[k] = foldExtras(x);
  return { ...out, ...(__extra ?? {}) };
}

describe('every corpus event round-trips through its block Avro schema', () => {
  const types = new Map<Block, avro.Type>(BLOCKS.map((b) => [b, avro.Type.forSchema(blockEventSchema(b) as avro.Schema)]));
  it.each(validCases)('%s', (_l, form, c, sender) => {
    const event = normalizeUpload(envelopeFor(form, c, sender), ctx).accepted[0]!.event;
    const type = types.get(event.block)!;
    const record = canonicalToAvro(event);
    expect(type.isValid(record)).toBe(true);
    const back = canonicalFromAvro({ ...(type.fromBuffer(type.toBuffer(record)) as Record<string, unknown>) });
    expect(back).toEqual({ ...event, props: foldExtras(event.props) });
  });
});
