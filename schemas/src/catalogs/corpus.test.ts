import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import avro from 'avsc';
import { CATALOG_KINDS, type CatalogKind } from '@evp/core';
import { catalogFromAvro, catalogToAvro } from '../avro/catalog-codec';
import { catalogSchema } from '../avro/catalog-schema';
import { normalizeCatalog } from '../normalize/catalog';
import { CLIENT_LINES, SPEC_CLIENT, type Sender } from '../clients/identity';
import { clientQuirk } from '../quirks';
import type { RuleName } from '../rules/registry';

// The catalog corpus (corpus/README.md): every case through normalizeCatalog with exact outcomes,
// and every accepted record through its kind's Avro schema and back.
const ctx = { appId: 'app-1', requestId: 'req-1', receivedAt: Date.UTC(2023, 10, 14, 22, 15), keyId: 'k-sdk' };

interface ValidCase {
  note?: string;
  record: Record<string, unknown>;
  expect?: Record<string, unknown>;
  extra?: Record<string, unknown>;
  warnings?: { path: string; rule: string }[];
}
interface InvalidCase {
  note?: string;
  record: unknown;
  errors: { path: string; rule: string }[];
}
interface Corpus {
  valid: ValidCase[];
  invalid: InvalidCase[];
}

const dir = join(__dirname, 'corpus');
const corpus = (kind: string): Corpus => JSON.parse(readFileSync(join(dir, `${kind}.json`), 'utf8')) as Corpus;
const rel = (path: string) => path.replace(/^\$\[0\]\.?/, '');

/**
 * Who sends a valid case: the client line of its quirk warnings' gates (a catalog upload's version
 * is unknown), so a real client's quirk is accepted from that client; a case without quirks from a
 * spec client. The mixed submissions come from a sender of every known line.
 */
function senderOf(c: ValidCase): Sender {
  const gated = (c.warnings ?? []).map((w) => clientQuirk(w.rule as RuleName)?.gate).find((g) => g !== undefined && g !== 'every');
  if (gated === undefined) return SPEC_CLIENT;
  const first = gated[0]!;
  return { line: typeof first === 'string' ? first : first.line, lineVersion: null };
}
const ANY_KNOWN_CLIENT: Sender = { line: 'ios-cf', lineVersion: null, orLines: CLIENT_LINES };

it('has a corpus file for every catalog kind and none for anything else', () => {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.replace(/\.json$/, ''))
    .sort();
  expect(files).toEqual([...CATALOG_KINDS].sort());
});

describe.each([...CATALOG_KINDS])('catalog corpus: %s', (kind: CatalogKind) => {
  const { valid, invalid } = corpus(kind);
  const type = avro.Type.forSchema(catalogSchema(kind) as avro.Schema);

  it('has at least one valid and one invalid case', () => {
    expect(valid.length).toBeGreaterThan(0);
    expect(invalid.length).toBeGreaterThan(0);
  });

  it.each(valid.map((c, i) => [c.note ?? `valid #${i}`, c] as const))('accepts: %s', (_note, c) => {
    const sender = senderOf(c);
    // The other way: a quirk case from a spec client is rejected.
    if (sender !== SPEC_CLIENT) expect(normalizeCatalog(kind, [c.record], ctx, undefined, SPEC_CLIENT).rejected).toHaveLength(1);
    const r = normalizeCatalog(kind, [c.record], ctx, undefined, sender);
    expect(r.rejected).toEqual([]);
    expect(r.accepted).toHaveLength(1);
    const { record, warnings } = r.accepted[0]!;
    const typed = c.expect ?? Object.fromEntries(Object.entries(c.record).filter(([k]) => !(k in (c.extra ?? {}))));
    expect(record).toEqual({
      app_id: 'app-1',
      id: typed.id,
      kind,
      received_at: ctx.receivedAt,
      request_id: 'req-1',
      record: typed,
      extra: c.extra ?? null,
    });
    expect(warnings.map((w) => ({ path: rel(w.path), rule: w.rule }))).toEqual(c.warnings ?? []);
    const back = catalogFromAvro(type.fromBuffer(type.toBuffer(catalogToAvro(record))) as Record<string, unknown>);
    expect(back).toEqual(record);
  });

  it.each(invalid.map((c, i) => [c.note ?? `invalid #${i}`, c] as const))('rejects: %s', (_note, c) => {
    const r = normalizeCatalog(kind, [c.record], ctx);
    expect(r.accepted).toEqual([]);
    expect(r.rejected).toHaveLength(1);
    const rej = r.rejected[0]!;
    expect(rej).toMatchObject({ kind: 'schema_violation', payload: c.record, event_count: 1, envelope_index: null, event_index: 0, event_name: null });
    expect(rej.reasons.map((e) => ({ path: rel(e.path), rule: e.rule }))).toEqual(c.errors);
    for (const e of rej.reasons) expect(e.message).toEqual(expect.any(String));
  });

  it('judges each record of a mixed submission on its own; counts add up', () => {
    const records = [...valid.map((c) => c.record), ...invalid.map((c) => c.record)];
    const r = normalizeCatalog(kind, records, ctx, undefined, ANY_KNOWN_CLIENT);
    expect(r.accepted).toHaveLength(valid.length);
    expect(r.rejected.map((x) => x.event_index)).toEqual(invalid.map((_, i) => valid.length + i));
    expect(r.accepted.length + r.rejected.reduce((n, x) => n + x.event_count, 0)).toBe(records.length);
  });
});
