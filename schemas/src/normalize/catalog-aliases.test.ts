import { catalogKindNames, resolveCatalogKind } from '../catalogs/definitions';
import { normalizeCatalog } from './catalog';
import { identifyCatalogClient } from '../clients/identity';
import { DEFAULT_NORMALIZE_OPTIONS } from './types';

/** These are causalfoundry/ios-sdk's uploads: URLSession's User-Agent on /v1/ingest/catalog/{kind} (catalog-gate.test.ts: the other way). */
const fromIos = identifyCatalogClient({ route: 'sdk', userAgent: 'ShopApp/57 CFNetwork/1494.0.7 Darwin/23.4.0' });

const ctx = { appId: 'app-1', requestId: 'req-1', receivedAt: Date.UTC(2025, 2, 17), keyId: 'k-sdk' };

describe('catalog kinds and aliases of real clients', () => {
  it('resolves every name in one place; own properties only', () => {
    expect(['user_chw', 'chw', 'chwsite', 'media', 'survey', 'reward', 'site'].map(resolveCatalogKind)).toEqual([
      'hcw',
      'hcw',
      'site',
      'media',
      'survey',
      'reward',
      'site',
    ]);
    expect(['constructor', '__proto__', 'toString', 'spaceship'].map(resolveCatalogKind)).toEqual([undefined, undefined, undefined, undefined]);
    expect(catalogKindNames()).toEqual(expect.arrayContaining(['media', 'survey', 'reward', 'user_chw', 'chw', 'chwsite']));
  });

  it('stores a chwsite record as a community site (catalog_kind_alias, default_applied)', () => {
    const record = { id: 'site_12', name: 'Kibera CHU', regionState: 'Nairobi', isActive: true, category: 'community', parent_site_id: '' };
    const r = normalizeCatalog('chwsite', [record], ctx, DEFAULT_NORMALIZE_OPTIONS, fromIos);
    expect(r.rejected).toEqual([]);
    expect(r.accepted[0]!.record).toEqual({
      app_id: 'app-1',
      id: 'site_12',
      kind: 'site',
      received_at: ctx.receivedAt,
      request_id: 'req-1',
      record: { id: 'site_12', name: 'Kibera CHU', type: 'community', region_state: 'Nairobi', parent_id: '', is_active: true },
      extra: { category: 'community' },
    });
    expect(r.accepted[0]!.warnings.map((w) => `${w.path} ${w.rule}`)).toEqual([
      '$[0] catalog_kind_alias',
      '$[0].type default_applied',
      '$[0].regionState property_spelling',
      '$[0].parent_site_id property_alias',
      '$[0].isActive property_spelling',
      '$[0].category unknown_property',
    ]);
    // A type sent wins; a wrong one is still wrong.
    expect(normalizeCatalog('chwsite', [{ ...record, type: 'clinic' }], ctx, DEFAULT_NORMALIZE_OPTIONS, fromIos).accepted[0]!.record.record.type).toBe(
      'clinic',
    );
    expect(normalizeCatalog('chwsite', [{ ...record, type: 'hut' }], ctx, DEFAULT_NORMALIZE_OPTIONS, fromIos).rejected[0]!.reasons.map((e) => e.rule)).toEqual([
      'enum',
    ]);
  });

  it('stores chw records as hcw (catalog_kind_alias), user_chw without a warning (issue 4)', () => {
    const chw = normalizeCatalog('chw', [{ id: 'hcw_7', name: 'Grace', siteIdsList: ['site_12'] }], ctx, DEFAULT_NORMALIZE_OPTIONS, fromIos).accepted[0]!;
    expect(chw.record).toMatchObject({ kind: 'hcw', record: { id: 'hcw_7', name: 'Grace', site_id_list: ['site_12'] } });
    expect(chw.warnings.map((w) => w.rule)).toEqual(['catalog_kind_alias', 'property_spelling']);
    expect(normalizeCatalog('user_chw', [{ id: 'hcw_7' }], ctx, DEFAULT_NORMALIZE_OPTIONS, fromIos).accepted[0]!.warnings).toEqual([]);
  });

  it('names every kind and alias when a name is no kind', () => {
    const r = normalizeCatalog('space-ship', [{ id: 'x' }], ctx, DEFAULT_NORMALIZE_OPTIONS, fromIos);
    expect(r.rejected[0]!.reasons[0]!.message).toContain(`catalog kind "space-ship" is neither a built-in kind (${catalogKindNames().join(', ')}) nor`);
  });
});
