import { ctx, currentEnvelope, earlierEnvelope, identifyLog } from '../__fixtures__/envelopes';
import { catalogUploadClient, identifyCatalogClient, SPEC_CLIENT, type Sender } from '../clients/identity';
import { normalizeCatalog } from './catalog';
import { userCatalogFromIdentify } from './catalog-identify';
import { normalizeDimensions } from './dimensions';
import { normalizeUpload } from './normalize';
import { DEFAULT_NORMALIZE_OPTIONS } from './types';

/**
 * Catalog quirks are gated by the client the upload identified (docs/data-contract.md, "Which client
 * sent a catalog"): each is accepted with its named warning from its client, and from any other
 * client the record meets the quirk's `else` rule and is rejected.
 */
const IOS_UA = 'ShopApp/57 CFNetwork/1494.0.7 Darwin/23.4.0';
const iosCf = catalogUploadClient(false, { route: 'sdk', userAgent: IOS_UA });
const generator = catalogUploadClient(false, { route: 'import', userAgent: 'python-requests/2.27.1' });
const kenkai = catalogUploadClient(true, { route: 'sdk', userAgent: IOS_UA });
const web = catalogUploadClient(false, { route: 'sdk', sdk: 'web/1.0.0', userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0' });
const webOnDimensions = catalogUploadClient(true, { route: 'sdk', sdk: 'web/1.0.0' });

const rules = (list: readonly { rule: string }[]) => [...new Set(list.map((r) => r.rule))].sort();

/** The one record's verdict: its warning rules when accepted, its reason rules when rejected. */
function verdict(kind: string, record: Record<string, unknown>, sender: Sender) {
  const out = normalizeCatalog(kind, [record], ctx, DEFAULT_NORMALIZE_OPTIONS, sender);
  if (out.accepted.length === 1) return { accepted: rules(out.accepted[0]!.warnings) };
  return { rejected: rules(out.rejected.flatMap((r) => r.reasons)) };
}

function dimensionsVerdict(type: string, kv: Record<string, string>, sender: Sender) {
  const out = normalizeDimensions({ data: [{ id: 'r1', type, kv }] }, ctx, DEFAULT_NORMALIZE_OPTIONS, sender);
  if (out.accepted.length === 1) return { accepted: rules(out.accepted[0]!.warnings) };
  return { rejected: rules(out.rejected.flatMap((r) => r.reasons)) };
}

describe('the client of a catalog upload', () => {
  it('is what the route, the declaration and the User-Agent say', () => {
    expect(iosCf).toEqual({ line: 'ios-cf', lineVersion: null });
    expect(generator).toEqual({ line: 'server-import', lineVersion: null });
    expect(kenkai).toEqual({ line: 'ios-kenkai', lineVersion: null, orLines: ['unity-ios'] });
    expect(web).toEqual(SPEC_CLIENT);
    expect(webOnDimensions).toEqual(SPEC_CLIENT);
    // No User-Agent of Apple's URL loading system, no declaration: the spec.
    expect(catalogUploadClient(false, { route: 'sdk', userAgent: 'okhttp/4.12.0' })).toEqual(SPEC_CLIENT);
    expect(catalogUploadClient(false, undefined)).toEqual(SPEC_CLIENT);
    // A declaration names the line and version as an envelope's sdk does.
    expect(catalogUploadClient(false, { route: 'sdk', sdk: 'rn/ios/1.1.8' })).toEqual({ line: 'ios-cf', lineVersion: [1, 1, 8] });
    expect(catalogUploadClient(true, { route: 'sdk', sdk: 'ios/1.0.10' })).toEqual({ line: 'unity-ios', lineVersion: [1, 0, 10] });
    expect(identifyCatalogClient({ route: 'sdk', sdk: { name: 'ios', version: '2.0.0' } })).toEqual(SPEC_CLIENT);
  });
});

describe('catalog quirks, both ways', () => {
  it('catalog_kind_alias: chw and chwsite from causalfoundry/ios-sdk only', () => {
    expect(verdict('chw', { id: 'h1', name: 'Amina' }, iosCf)).toEqual({ accepted: ['catalog_kind_alias'] });
    expect(verdict('chw', { id: 'h1', name: 'Amina' }, web)).toEqual({ rejected: ['unknown_catalog_kind'] });
    expect(verdict('chwsite', { id: 's1', name: 'Site' }, iosCf)).toEqual({ accepted: ['catalog_kind_alias', 'default_applied'] });
    expect(verdict('chwsite', { id: 's1', name: 'Site' }, web)).toEqual({ rejected: ['required', 'unknown_catalog_kind'] });
  });

  it('empty_enum and unset_value: the older iOS user catalog defaults', () => {
    const user = { id: 'u1', timezone: '+0300', gender: '', birth_year: 0 };
    expect(verdict('user', user, iosCf)).toEqual({ accepted: ['empty_enum', 'unset_value'] });
    expect(verdict('user', user, web)).toEqual({ rejected: ['client_quirk', 'enum'] });
  });

  it('property_alias: has_whatsapp from the iOS lines and the generator, not from another client', () => {
    expect(verdict('patient', { id: 'p1', has_whatsapp: true }, iosCf)).toEqual({ accepted: ['property_alias'] });
    expect(verdict('patient', { id: 'p1', has_whatsapp: true }, web)).toEqual({ rejected: ['client_quirk'] });
  });

  it('value_format and type_coerced: the generator’s ISO codes and Python list text, from /data/ only', () => {
    expect(verdict('user', { id: 'u1', timezone: 'UTC', country: 'IN', language: 'fr' }, generator)).toEqual({ accepted: ['value_format'] });
    expect(verdict('user', { id: 'u1', timezone: 'UTC', country: 'IN', language: 'fr' }, web)).toEqual({ rejected: ['client_quirk'] });
    const drug = { id: 'd1', name: 'Aspirin', active_ingredients: "['Aspirin', 'Caffeine']" };
    expect(verdict('drug', drug, generator)).toEqual({ accepted: ['type_coerced'] });
    expect(verdict('drug', drug, web)).toEqual({ rejected: ['type'] });
  });

  it('catalog_string_coerced and default_zero: the Kenkai Core’s kv strings, from /v1/ingest/dimensions only', () => {
    expect(dimensionsVerdict('user', { timezone: 'UTC', birth_year: '1990' }, kenkai)).toEqual({ accepted: ['catalog_string_coerced'] });
    expect(dimensionsVerdict('user', { timezone: 'UTC', birth_year: '1990' }, webOnDimensions)).toEqual({ rejected: ['type'] });
    const site = { name: 'Clinic', type: 'clinic', latitude: '0', longitude: '0' };
    expect(dimensionsVerdict('site', site, kenkai)).toEqual({ accepted: ['catalog_string_coerced', 'default_zero'] });
    expect(dimensionsVerdict('site', site, webOnDimensions)).toEqual({ rejected: ['client_quirk', 'type'] });
  });

  it('custom_catalog_kind is a platform warning: app-defined kinds from every client', () => {
    expect(verdict('game_item', { id: 'g1', rarity: 'epic' }, web)).toEqual({ accepted: ['custom_catalog_kind'] });
    expect(dimensionsVerdict('game_item', { name: 'Game Item' }, webOnDimensions)).toEqual({ accepted: ['custom_catalog_kind'] });
  });

  it('a spec record is accepted without a warning from every client', () => {
    for (const sender of [iosCf, generator, web]) expect(verdict('user', { id: 'u1', timezone: 'UTC', gender: 'female' }, sender)).toEqual({ accepted: [] });
  });
});

describe('the user catalog record of an identify is gated by its envelope', () => {
  const earlierIdentify = (sdk: string) =>
    normalizeUpload(
      {
        ...earlierEnvelope([
          { block: 'core', ol: true, ts: '2023-11-15T03:43:21.000Z', type: 'identify', props: { action: 'login', name: 'Amina', gender: '' } },
        ]),
        sdk,
      },
      ctx,
    ).accepted[0]!.event;

  it('from causalfoundry/ios-sdk 1.2.3: the record, with empty_enum', () => {
    const made = userCatalogFromIdentify(earlierIdentify('ios/1.2.3'));
    expect(made.reasons).toEqual([]);
    expect(made.accepted?.record.record).toEqual({ id: 'user-7', name: 'Amina', timezone: 'Z' });
    expect(rules(made.accepted!.warnings)).toEqual(['empty_enum']);
  });

  it('from another client: no record, the quirk named among the problems', () => {
    const event = normalizeUpload(currentEnvelope([{ ...identifyLog, ctx: { action: 'login', name: 'Amina', gender: '' } }]), ctx).accepted[0]!.event;
    const made = userCatalogFromIdentify(event);
    expect(made.accepted).toBeNull();
    expect(made.reasons).toEqual([
      expect.objectContaining({ path: '$.identify.gender', rule: 'identify_user_catalog', message: expect.stringContaining('enum') as string }),
    ]);
  });
});
