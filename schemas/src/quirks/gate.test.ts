import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { normalizeUpload } from '../normalize/normalize';
import { RULES, type RuleName } from '../rules/registry';
import { clientQuirk } from './index';

/**
 * Every quirk the real clients' corpora exercise (schemas/corpus/clients), both ways: each event log
 * upload as its client sends it, then the same body with the `sdk` of a client no gate names
 * (`web/1.0.0` in the current form, `android_2.0.0` in the earlier one). An event that its client gets
 * accepted with a quirk whose spec rule is an error is rejected from the other client; an event with
 * no such quirk is still accepted.
 */
interface Payload {
  id: string;
  request: { path: string; body: unknown };
}
const dir = join(__dirname, '../../corpus/clients');
const ctx = { appId: 'app-1', requestId: 'req-1', receivedAt: Date.UTC(2026, 0, 1), keyId: 'k' };
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The body with the sdk of a client no gate names; undefined for a body of neither spec form. */
function fromOtherClient(body: unknown): unknown {
  const swap = (env: unknown) => {
    if (!isObject(env)) return env;
    if (isObject(env.internal)) return { ...env, internal: { ...env.internal, sdk: 'web/1.0.0' } };
    if (typeof env.sdk === 'string') return { ...env, sdk: 'android_2.0.0' };
    return env;
  };
  return Array.isArray(body) ? body.map(swap) : swap(body);
}

const cases = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .flatMap((f) =>
    (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { payloads: Payload[] }).payloads
      .filter((p) => ['/v1/ingest/log', '/v1/ingest/events'].includes(p.request.path))
      .map((p) => [`${f} ${p.id}`, p.request.body] as const),
  );

/** The quirks of a warning list whose spec rule rejects. */
const rejectingQuirks = (warnings: readonly { rule: string }[]) =>
  warnings.filter((w) => {
    const q = clientQuirk(w.rule as RuleName);
    return q !== undefined && q.gate !== 'every' && RULES[q.otherwise].severity === 'error';
  });

/** The quirks (with an error spec rule) the corpora's log uploads carry; the others are tested in their own files (envelope, crash, strict-contract). */
const EXERCISED = [
  'ambiguous_flattened_key',
  'block_is_permission',
  'block_missing',
  'block_of_app',
  'block_spelling',
  'boolean_as_number',
  'copied_from_item',
  'custom_event',
  'default_applied',
  'empty_details',
  'empty_property',
  'enum_alias',
  'enum_spelling',
  'epoch_zero_time',
  'event_alias',
  'event_not_in_spec',
  'event_spelling',
  'flattened_object',
  'joined_list',
  'lat_lon_string',
  'nudge_ref_derived',
  'nudge_time_derived',
  'payment_event_mapped',
  'property_alias',
  'property_moved',
  'property_spelling',
  'render_time_seconds',
  'required_missing',
  'store_id_is_remarks',
  'time_as_string',
  'type_coerced',
  'unset_value',
];

describe('every quirk of the real clients’ corpora is accepted from its client only', () => {
  it('covers the client log uploads', () => expect(cases.length).toBeGreaterThan(250));

  it.each(cases)('%s', (_label, body) => {
    // One envelope per upload (accepted events carry no envelope index to tell envelopes apart).
    expect(Array.isArray(body)).toBe(false);
    const own = normalizeUpload(body, ctx);
    const other = normalizeUpload(fromOtherClient(body), ctx);
    const key = (e: { event_index: number | null }, envelope: number | null) => `${envelope ?? 0}/${e.event_index}`;
    const rejectedThere = new Set(other.rejected.map((r) => key(r, r.envelope_index)));
    const acceptedThere = new Set(other.accepted.map((a) => `0/${a.event_index}`));
    for (const a of own.accepted) {
      const quirks = rejectingQuirks(a.warnings).map((w) => w.rule);
      const at = `0/${a.event_index}`;
      // Each event's outcome from the other client, named by the quirks it needed.
      expect([at, quirks, quirks.length > 0 ? rejectedThere.has(at) : acceptedThere.has(at)]).toEqual([at, quirks, true]);
    }
  });

  it('exercises these quirks (each rejected from the other client above)', () => {
    const exercised = new Set(cases.flatMap(([, body]) => normalizeUpload(body, ctx).accepted.flatMap((a) => rejectingQuirks(a.warnings).map((w) => w.rule))));
    expect([...exercised].sort()).toEqual(EXERCISED);
  });
});
