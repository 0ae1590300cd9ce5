import avro from 'avsc';
import { CATALOG_KINDS, topics } from '@evp/core';
import { ctx } from '../__fixtures__/envelopes';
import { catalogToAvro } from '../avro/catalog-codec';
import { catalogRecordTopic, customCatalogFromAvro, customCatalogSchema } from '../avro/custom-catalog';
import { normalizeCatalog } from '../normalize/catalog';
import { CUSTOM_CATALOG_KIND_PATTERN, catalogKindOf, unknownCatalogKindMessage } from './custom';
import { catalogKindAliases, catalogKindNames } from './definitions';

describe('app-defined catalog kind names', () => {
  it.each(['game_item', 'g', 'level2', 'a_b_c', 'x'.repeat(64), 'constructor', 'dimensions', 'custom', 'other'])('%s is an app-defined kind', (name) => {
    expect(catalogKindOf(name)).toEqual({ custom: true, kind: name });
  });

  it.each([
    ['', 'empty'],
    ['Game_Item', 'upper case'],
    ['game-item', 'a hyphen (the Unity client keeps it)'],
    ['game.item', 'a dot'],
    ['game item', 'a space'],
    ['2items', 'a leading digit'],
    ['_item', 'a leading underscore'],
    ['__proto__', 'an Object.prototype name that is no identifier here'],
    ['épée', 'non-ASCII'],
    ['x'.repeat(65), 'longer than 64'],
    ['item\n', 'a trailing newline'],
  ])('%j is no kind (%s)', (name) => {
    expect(catalogKindOf(name)).toBeUndefined();
    expect(unknownCatalogKindMessage(name)).toBe(
      `catalog kind ${JSON.stringify(name)} is neither a built-in kind (${catalogKindNames().join(', ')}) nor an app-defined kind name ([a-z][a-z0-9_]{0,63}: a lower-case letter, then up to 63 lower-case letters, digits or _)`,
    );
  });

  it('never takes a built-in kind or alias: those always mean the built-in kind', () => {
    for (const kind of CATALOG_KINDS) expect(catalogKindOf(kind)).toEqual({ custom: false, kind });
    expect(Object.entries(catalogKindAliases).map(([name]) => [name, catalogKindOf(name)])).toEqual([
      ['user_chw', { custom: false, kind: 'hcw' }],
      ['chw', { custom: false, kind: 'hcw' }],
      ['chwsite', { custom: false, kind: 'site' }],
    ]);
    // Every built-in name would pass the pattern: the built-ins must be looked up first.
    for (const name of catalogKindNames()) expect(CUSTOM_CATALOG_KIND_PATTERN.test(name)).toBe(true);
    // The topic of every app-defined kind is no built-in kind's topic.
    expect(CATALOG_KINDS.map((k) => topics.catalog(k))).not.toContain(topics.customCatalog);
  });
});

describe('a catalog submission of an app-defined kind', () => {
  it('keeps each record with its fields as sent, one custom_catalog_kind warning each, and judges records one by one', () => {
    const r = normalizeCatalog(
      'game_item',
      [{ id: 'sword', power: 12, tags: ['epic'], stats: { atk: 3 } }, { power: 1 }, { id: 7 }, 'x', { id: 'shield' }],
      ctx,
    );
    expect(r.accepted.map((a) => [a.index, a.record, a.warnings.map((w) => [w.path, w.rule])])).toEqual([
      [
        0,
        {
          custom: true,
          app_id: 'app-1',
          id: 'sword',
          kind: 'game_item',
          received_at: ctx.receivedAt,
          request_id: 'req-1',
          record: { power: 12, tags: ['epic'], stats: { atk: 3 } },
        },
        [['$[0]', 'custom_catalog_kind']],
      ],
      [
        4,
        { custom: true, app_id: 'app-1', id: 'shield', kind: 'game_item', received_at: ctx.receivedAt, request_id: 'req-1', record: {} },
        [['$[4]', 'custom_catalog_kind']],
      ],
    ]);
    expect(r.rejected.map((x) => [x.event_index, x.kind, x.reasons.map((e) => [e.path, e.rule])])).toEqual([
      [1, 'schema_violation', [['$[1].id', 'required']]],
      [2, 'schema_violation', [['$[2].id', 'type']]],
      [3, 'schema_violation', [['$[3]', 'type']]],
    ]);
  });

  it('refuses a record over the size limit, and a body that is not an array', () => {
    const big = normalizeCatalog('game_item', [{ id: 'a', pad: 'x'.repeat(200) }], ctx, { maxEventChars: 100 });
    expect(big.rejected.map((x) => [x.kind, x.reasons[0]!.rule])).toEqual([['size_violation', 'max_size']]);
    expect(normalizeCatalog('game_item', { id: 'a' }, ctx).rejected.map((x) => [x.kind, x.reasons[0]!.message])).toEqual([
      ['envelope_violation', 'a catalog submission must be a JSON array of game_item records'],
    ]);
  });

  it('keeps a field named __proto__ as a field (never as the prototype)', () => {
    const [a] = normalizeCatalog('game_item', [JSON.parse('{"id":"a","__proto__":{"x":1}}')], ctx).accepted;
    expect(Object.getPrototypeOf(a!.record.record)).toBe(Object.prototype);
    expect(JSON.stringify(a!.record.record)).toBe('{"__proto__":{"x":1}}');
  });

  it('travels on catalog.custom with one Avro schema, and reads back as it was', () => {
    const [a] = normalizeCatalog('game_item', [{ id: 'sword', power: 12, name: 'Sword', nested: { a: [1, null] } }], ctx).accepted;
    expect(catalogRecordTopic(a!.record)).toBe('catalog.custom');
    const value = catalogToAvro(a!.record);
    expect(value).toEqual({
      app_id: 'app-1',
      id: 'sword',
      kind: 'game_item',
      received_at: ctx.receivedAt,
      request_id: 'req-1',
      record_json: '{"power":12,"name":"Sword","nested":{"a":[1,null]}}',
    });
    const type = avro.Type.forSchema(customCatalogSchema as avro.Schema);
    expect(customCatalogFromAvro(type.fromBuffer(type.toBuffer(value)) as Record<string, unknown>)).toEqual(a!.record);
  });
});
