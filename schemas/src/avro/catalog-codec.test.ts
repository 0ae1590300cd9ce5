import avro from 'avsc';
import { CATALOG_KINDS } from '@evp/core';
import { normalizeCatalog } from '../normalize/catalog';
import { catalogFromAvro, catalogToAvro } from './catalog-codec';
import { catalogSchema, catalogSubject } from './catalog-schema';

const ctx = { appId: 'app-1', requestId: 'req-1', receivedAt: 1_700_000_100_000, keyId: 'k-sdk' };
const fieldsOf = (kind: (typeof CATALOG_KINDS)[number]) => (catalogSchema(kind) as { fields: { name: string; type: unknown }[] }).fields;

describe('catalog Avro schemas', () => {
  it('derives a valid schema per kind, subject catalog.<kind>-value', () => {
    for (const kind of CATALOG_KINDS) {
      expect(() => avro.Type.forSchema(catalogSchema(kind) as avro.Schema)).not.toThrow();
      expect(catalogSubject(kind)).toBe(`catalog.${kind}-value`);
    }
  });

  it('starts with the common fields and ends with extra_json', () => {
    for (const kind of CATALOG_KINDS) {
      const names = fieldsOf(kind).map((f) => f.name);
      expect(names.slice(0, 5)).toEqual(['app_id', 'id', 'kind', 'received_at', 'request_id']);
      expect(names[names.length - 1]).toBe('extra_json');
      expect(names.filter((n) => n === 'id')).toHaveLength(1);
    }
  });

  it('types the user fields as the spec: required timezone, INT birth_year, enums as strings', () => {
    const f = Object.fromEntries(fieldsOf('user').map((x) => [x.name, x.type]));
    expect(f.timezone).toBe('string');
    expect(f.birth_year).toEqual(['null', 'int']);
    expect(f.account_type).toEqual(['null', 'string']);
  });

  it('carries free-form site attributes as attributes_json (the sink parses x_json back into x)', () => {
    const [a] = normalizeCatalog('site', [{ id: 's-1', name: 'A', type: 'clinic', attributes: { beds: 3, plans: ['x'] }, note: 'n' }], ctx).accepted;
    const value = catalogToAvro(a!.record);
    expect(value).toMatchObject({ attributes_json: '{"beds":3,"plans":["x"]}', extra_json: '{"note":"n"}', kind: 'site', service_list: null });
    const type = avro.Type.forSchema(catalogSchema('site') as avro.Schema);
    expect(catalogFromAvro(type.fromBuffer(type.toBuffer(value)) as Record<string, unknown>)).toEqual(a!.record);
  });
});
