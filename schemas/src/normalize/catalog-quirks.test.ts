import { ctx } from '../__fixtures__/envelopes';
import { catalogDef } from '../catalogs/definitions';
import { normalizeCatalog } from './catalog';
import { identifyCatalogClient } from '../clients/identity';
import { DEFAULT_NORMALIZE_OPTIONS } from './types';

/** The generator's uploads: /data/ingest/catalog/{kind} (catalog-gate.test.ts: the other way). */
const fromGenerator = identifyCatalogClient({ route: 'import' });
import { applyCatalogQuirks, parsePythonStringList } from './catalog-quirks';

describe('parsePythonStringList', () => {
  it.each([
    ["['Sort nice election yourself.']", ['Sort nice election yourself.']],
    ["['a', 'b']", ['a', 'b']],
    ['[]', []],
    [" [ \"it's\" , 'x' ] ", ["it's", 'x']],
    ["['a\\\\b', 'tab\\there', 'caf\\xe9', '\\u2603']", ['a\\b', 'tab\there', 'café', '☃']],
  ])('%s → %j', (text, list) => {
    expect(parsePythonStringList(text)).toEqual(list);
  });

  it.each(['a, b', "['a',]", "['a' 'b']", "['a'", '[1, 2]', "['a'] x", "['\\q']", '', "['a', \"b']"])('%s is not a list of strings', (text) => {
    expect(parsePythonStringList(text)).toBeUndefined();
  });
});

describe('catalog quirks', () => {
  it("reads the generator's drug record: the list text as a list, with type_coerced", () => {
    const r = normalizeCatalog(
      'drug',
      [{ id: 'd-1', name: 'Kevin', active_ingredients: "['Aspirin', 'Caffeine']", drug_name: 'Kevin' }],
      ctx,
      DEFAULT_NORMALIZE_OPTIONS,
      fromGenerator,
    );
    expect(r.rejected).toEqual([]);
    expect(r.accepted[0]!.record.record).toEqual({ id: 'd-1', name: 'Kevin', active_ingredients: ['Aspirin', 'Caffeine'] });
    expect(r.accepted[0]!.warnings).toEqual([
      { path: '$[0].active_ingredients', rule: 'type_coerced', message: 'active_ingredients is the text of a list; read as its 2 item(s)' },
      { path: '$[0].drug_name', rule: 'unknown_property', message: 'drug_name is not part of DrugCatalogRecord; kept as extra' },
    ]);
  });

  it('still rejects any other string for a list', () => {
    const r = normalizeCatalog('drug', [{ id: 'd-1', name: 'K', active_ingredients: 'Aspirin, Caffeine' }], ctx, DEFAULT_NORMALIZE_OPTIONS, fromGenerator);
    expect(r.rejected[0]!.reasons.map((e) => [e.path, e.rule])).toEqual([['$[0].active_ingredients', 'type']]);
  });

  it("reads the generator's user record: ISO codes as names, organization as organization_name", () => {
    const record = { id: 'u-1', timezone: '+0530', country: 'IN', language: 'fr', organization: 'Travis Holt' };
    const r = normalizeCatalog('user', [record], ctx, DEFAULT_NORMALIZE_OPTIONS, fromGenerator);
    expect(r.accepted[0]!.record.record).toEqual({ id: 'u-1', country: 'India', language: 'French', organization_name: 'Travis Holt', timezone: '+0530' });
    expect(r.accepted[0]!.warnings.map((w) => [w.path, w.rule, w.message])).toEqual([
      ['$[0].country', 'value_format', 'country "IN" is an ISO 3166 code; read as India'],
      ['$[0].language', 'value_format', 'language "fr" is an ISO 639-1 code; read as French'],
      ['$[0].organization', 'property_alias', 'organization is a client name of organization_name; read as organization_name'],
    ]);
    // The input is not changed: a rejection keeps what was sent.
    expect(record.country).toBe('IN');
  });

  it('keeps full names, unknown codes and other kinds as sent', () => {
    const user = catalogDef('user');
    for (const record of [
      { country: 'India', language: 'French' },
      { country: 'ZZ', language: 'qq' },
      { country: 'in', language: 'FR' },
    ]) {
      expect(applyCatalogQuirks(user, record, '$')).toEqual({ record, warnings: [] });
    }
    expect(applyCatalogQuirks(catalogDef('chat_user'), { country: 'IN' }, '$').warnings).toEqual([]);
  });
});
