import avro from 'avsc';
import fc from 'fast-check';
import { CATALOG_KINDS } from '@evp/core';
import { catalogFromAvro, catalogToAvro } from '../avro/catalog-codec';
import { catalogSchema } from '../avro/catalog-schema';
import { normalizeCatalog } from '../normalize/catalog';
import { catalogDef } from './definitions';

/**
 * Property-based checks of normalizeCatalog's promises: it never throws, every submitted record is
 * accounted for exactly once, and every accepted record encodes with its kind's Avro schema (so the
 * validator can never fail a batch on encoding) and decodes back to itself.
 */
const ctx = { appId: 'app-1', requestId: 'req-1', receivedAt: 1_700_000_100_000, keyId: 'k' };
const types = new Map(CATALOG_KINDS.map((k) => [k, avro.Type.forSchema(catalogSchema(k) as avro.Schema)]));

// Records built from the definitions' own field names, so many are valid and many are near misses.
const fieldValue = fc.oneof(
  fc.string(),
  fc.constantFrom('male', 'basic', 'clinic', '5_or_more', 'undisclosed', 'O+', 'cylinder', ''),
  fc.integer({ min: 1850, max: 2150 }),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
);
const recordOf = (kind: (typeof CATALOG_KINDS)[number]) =>
  fc.dictionary(fc.constantFrom(...Object.keys(catalogDef(kind).fields), 'extra_a', '__proto__', 'constructor'), fieldValue, { maxKeys: 8 });

describe.each([...CATALOG_KINDS])('normalizeCatalog properties: %s', (kind) => {
  it('never throws, accounts for every record, and every accepted record round-trips through Avro', () => {
    fc.assert(
      fc.property(fc.oneof(fc.array(fc.oneof(recordOf(kind), fc.jsonValue()), { maxLength: 6 }), fc.jsonValue()), (body) => {
        const r = normalizeCatalog(kind, body, ctx);
        const recordsIn = Array.isArray(body) ? body.length : 1;
        const rejected = r.rejected.reduce((n, x) => n + x.event_count, 0);
        expect(r.accepted.length + rejected).toBe(Array.isArray(body) && body.length === 0 ? 0 : recordsIn);
        for (const x of r.rejected) expect(x.reasons.length).toBeGreaterThan(0);
        const type = types.get(kind)!;
        for (const a of r.accepted) {
          expect(a.record.id.length).toBeGreaterThan(0);
          const value = catalogToAvro(a.record);
          expect(type.isValid(value)).toBe(true);
          expect(catalogFromAvro(type.fromBuffer(type.toBuffer(value)) as Record<string, unknown>)).toEqual(a.record);
        }
      }),
      { numRuns: 300 },
    );
  });
});
