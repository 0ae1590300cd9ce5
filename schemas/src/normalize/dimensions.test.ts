import { ctx } from '../__fixtures__/envelopes';
import { normalizeDimensions } from './dimensions';

const rules = (w: { path: string; rule: string }[]) => w.map((x) => [x.path, x.rule]);

describe('normalizeDimensions: the Kenkai catalog upload {data: [{id, type, kv}]}', () => {
  it('splits a mixed body into records of their kinds, reading kv strings by the definition', () => {
    const r = normalizeDimensions(
      {
        data: [
          { id: 'u-1', type: 'user', kv: { name: 'Amina', timezone: '+05:00', birth_year: '1990', notification_permission: 'granted' } },
          { id: 'hcw-11', type: 'user_chw', kv: { name: 'Sana', site_id_list: 's-4, s-5' } },
          {
            id: 'site-1',
            type: 'site',
            kv: { name: 'City', type: 'pharmacy', is_active: '1', is_private: 'false', latitude: '24.8607', longitude: '67.0011' },
          },
          { id: 'pat-1', type: 'patient', kv: { has_whatsapp: '1', has_email: '0' } },
        ],
      },
      ctx,
    );
    expect(r.rejected).toEqual([]);
    expect(r.accepted.map((a) => [a.index, a.record.kind, a.record.record, 'extra' in a.record ? a.record.extra : 'custom'])).toEqual([
      [0, 'user', { id: 'u-1', name: 'Amina', timezone: '+05:00', birth_year: 1990 }, { notification_permission: 'granted' }],
      [1, 'hcw', { id: 'hcw-11', name: 'Sana', site_id_list: ['s-4', 's-5'] }, null],
      [2, 'site', { id: 'site-1', name: 'City', type: 'pharmacy', is_active: true, is_private: false, latitude: 24.8607, longitude: 67.0011 }, null],
      [3, 'patient', { id: 'pat-1', has_chatapp: true, has_email: false }, null],
    ]);
    expect(rules(r.accepted[0]!.warnings)).toEqual([
      ['$.data[0].kv.birth_year', 'catalog_string_coerced'],
      ['$.data[0].kv.notification_permission', 'unknown_property'],
    ]);
    expect(rules(r.accepted[3]!.warnings)).toEqual([
      ['$.data[3].kv.has_whatsapp', 'catalog_string_coerced'],
      ['$.data[3].kv.has_email', 'catalog_string_coerced'],
      ['$.data[3].kv.has_whatsapp', 'property_alias'],
    ]);
  });

  it('leaves out the client defaults that mean unset (birth_year "0", a 0,0 position)', () => {
    const r = normalizeDimensions(
      {
        data: [
          { id: 'u', type: 'user', kv: { timezone: 'Z', birth_year: '0' } },
          { id: 's', type: 'site', kv: { name: 'n', type: 'clinic', latitude: '0', longitude: '0' } },
        ],
      },
      ctx,
    );
    expect(r.accepted.map((a) => a.record.record)).toEqual([
      { id: 'u', timezone: 'Z' },
      { id: 's', name: 'n', type: 'clinic' },
    ]);
    // birth_year 0 is "not set" for every client (the definition: unset_value); the 0,0 position is this client's default.
    expect(rules(r.accepted[0]!.warnings)).toEqual([
      ['$.data[0].kv.birth_year', 'catalog_string_coerced'],
      ['$.data[0].kv.birth_year', 'unset_value'],
    ]);
    expect(rules(r.accepted[1]!.warnings).filter(([, rule]) => rule === 'default_zero')).toEqual([
      ['$.data[1].kv.latitude', 'default_zero'],
      ['$.data[1].kv.longitude', 'default_zero'],
    ]);
  });

  it('judges each record on its own: kinds that are no kind, bad shapes and values that do not parse', () => {
    const r = normalizeDimensions(
      {
        data: [
          { id: 'x', type: 'Game-Item', kv: { name: 'Sword' } },
          'nope',
          { type: 'drug', kv: {} },
          { id: 'u', type: 'user', kv: { timezone: 'Z', birth_year: 'nineteen' } },
          { id: 'd', type: 'drug', kv: { name: 'Panadol' } },
          { id: '', type: 'game_item', kv: {} },
        ],
      },
      ctx,
    );
    expect(r.accepted.map((a) => [a.index, a.record.kind])).toEqual([[4, 'drug']]);
    expect(r.rejected.map((x) => [x.event_index, x.kind, x.event_count, rules(x.reasons)])).toEqual([
      [0, 'schema_violation', 1, [['$.data[0].type', 'unknown_catalog_kind']]],
      [1, 'schema_violation', 1, [['$.data[1]', 'type']]],
      [2, 'schema_violation', 1, [['$.data[2].id', 'required']]],
      [3, 'schema_violation', 1, [['$.data[3].kv.birth_year', 'type']]],
      [5, 'schema_violation', 1, [['$.data[5].id', 'non_empty']]],
    ]);
    expect(r.rejected[0]!.reasons[0]!.message).toMatch(/^catalog kind "Game-Item" is neither a built-in kind \(user, site, .*\) nor an app-defined kind name/);
  });

  it('keeps a record of an app-defined kind (Unity LogOtherCatalog) with its kv as sent and a custom_catalog_kind warning', () => {
    const r = normalizeDimensions(
      {
        data: [
          { id: 'item-77', type: 'game_item', kv: { name: 'Game Item', power: '12', rarity: 'epic', tradable: 'true', id: 'ignored' } },
          { id: 'lvl-1', type: 'level_pack' },
        ],
      },
      ctx,
    );
    expect(r.rejected).toEqual([]);
    expect(r.accepted).toEqual([
      {
        index: 0,
        record: {
          custom: true,
          app_id: ctx.appId,
          id: 'item-77',
          kind: 'game_item',
          received_at: ctx.receivedAt,
          request_id: ctx.requestId,
          record: { name: 'Game Item', power: '12', rarity: 'epic', tradable: 'true' },
        },
        warnings: [
          {
            path: '$.data[0].type',
            rule: 'custom_catalog_kind',
            message: 'game_item is no built-in catalog kind: kept as an app-defined kind (table catalog_custom), its fields as sent and unchecked',
          },
        ],
      },
      expect.objectContaining({ index: 1, record: expect.objectContaining({ kind: 'level_pack', id: 'lvl-1', record: {} }) }),
    ]);
  });

  it('rejects a body that is not {data: [...]} as one envelope violation', () => {
    expect(normalizeDimensions([{ id: 'd', type: 'drug' }], ctx).rejected.map((x) => [x.kind, rules(x.reasons)])).toEqual([
      ['envelope_violation', [['$', 'type']]],
    ]);
    expect(normalizeDimensions({ data: 'x' }, ctx).rejected.map((x) => rules(x.reasons))).toEqual([[['$.data', 'type']]]);
  });
});
