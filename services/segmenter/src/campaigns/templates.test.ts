import { CATALOG_KINDS, type CatalogKind } from '@evp/core';
import { CatalogRecords, userScope, type TemplateData } from './template-data';
import { TemplateEngine, type Content } from './templates';

const engine = new TemplateEngine();
const P = '$.action.content.title';
const ITEM = { event: 'item' };

const data = (over: Partial<TemplateData> = {}): TemplateData => ({
  user: userScope('u1', { id: 'u1', name: 'Asha', city: null, timezone: 'Asia/Kathmandu' }, { os: 'android', tz: '+05:45' }),
  event: { action: 'view', item: { id: 'D-1', type: 'drug' }, items: [{ id: 'D-1' }, { id: 'D-2' }] },
  trigger: { kind: 'event', time: '2026-01-15T03:00:00.000Z', event: 'item' },
  ...over,
});

const render = (content: Partial<Content>, d: TemplateData = data(), records = new CatalogRecords()) =>
  engine.render(engine.compile({ title: '', body: '', ...content }), d, records);

describe('TemplateEngine.check (save time)', () => {
  it('accepts user, event, catalog and trigger variables of the data contract', () => {
    const source =
      '{{ user.name | default: "there" }} {{ user.id }} {{ user.os }} {{ user.name.size }} {{ catalog.drug[event.item.id].name }} ' +
      '{{ catalog.drug[event.item.id].active_ingredients.first }} {% for i in event.item.id %}{{ i }}{% endfor %} {{ trigger.time }} {{ trigger.event }}' +
      '{% assign n = user.city %}{{ n }}{% capture c %}x{% endcapture %}{{ c }}';
    expect(engine.check(P, source, ITEM)).toEqual([]);
  });

  it('reports each unknown variable once, with its line and column and what exists', () => {
    const source = 'Hi {{ user.nme }}\n{{ user.nme }} {{ event.item.colour }} {{ catalog.durg["x"].name }} {{ catalog.drug["x"].nam }} {{ foo }}';
    const reasons = engine.check(P, source, ITEM);
    expect(reasons.map((p) => [p.path, p.rule])).toEqual([
      [P, 'unknown_variable'],
      [P, 'unknown_variable'],
      [P, 'unknown_variable'],
      [P, 'unknown_variable'],
      [P, 'unknown_variable'],
    ]);
    expect(reasons.map((p) => p.message.slice(0, p.message.indexOf(':')))).toEqual([
      'user.nme (line 1, column 7)',
      'event.item.colour (line 2, column 19)',
      'catalog.durg.x.name (line 2, column 43)',
      'catalog.drug.x.nam (line 2, column 72)',
      'foo (line 2, column 100)',
    ]);
    expect(reasons[0]?.message).toMatch(/^user\.nme \(line 1, column 7\): user\.nme is not a user variable: user\.id or one of os, app_version, .*, name, /);
    expect(reasons[1]?.message).toBe(
      'event.item.colour (line 2, column 19): event.item.colour is not in the data contract: event.item has id, type, quantity, price, currency, stock_status, promo_id, discount, facility_id',
    );
    expect(reasons[2]?.message).toBe(
      'catalog.durg.x.name (line 2, column 43): catalog.durg: read a catalog as catalog.KIND[ID].FIELD, KIND one of ' + CATALOG_KINDS.join(', '),
    );
    expect(reasons[3]?.message).toMatch(
      /^catalog\.drug\.x\.nam \(line 2, column 72\): catalog\.drug\.x\.nam is not in the data contract: catalog\.drug\.x has id, name, description, /,
    );
    expect(reasons[4]?.message).toBe(
      'foo (line 2, column 100): foo is not a variable: templates read user, event, catalog, trigger (or what assign, capture and for define)',
    );
  });

  it('knows there is no event unless the trigger is one', () => {
    expect(engine.check(P, '{{ event.item.id }} {{ trigger.event }} {{ trigger.kind }}', {})).toEqual([
      {
        path: P,
        rule: 'unknown_variable',
        message: 'event.item.id (line 1, column 4): event is set only when the trigger is an event: this campaign has no triggering event',
      },
      { path: P, rule: 'unknown_variable', message: 'trigger.event (line 1, column 24): trigger.event is not a trigger variable: trigger.kind, trigger.time' },
    ]);
  });

  it('follows the contract through arrays, strings and catalog ids', () => {
    expect(
      engine
        .check(P, '{{ event.items }}{{ user.name.first }}{{ catalog.drug }}{{ user.os.x }}', { event: 'checkout' })
        .map((p) => p.message.slice(p.message.indexOf(': ') + 2)),
    ).toEqual([
      'user.name is a string: it has no property first',
      'catalog.drug needs an id: catalog.drug[ID].FIELD',
      'user.os is a string: it has no property x',
    ]);
    expect(
      engine
        .check(P, '{{ event.items[0].price }} {{ event.items.size }} {{ event.items.last.id }} {{ event.items.id }}', { event: 'checkout' })
        .map((p) => p.message),
    ).toEqual(['event.items.id (line 1, column 80): event.items is an array: read its elements with [index], first or last (or its size), not id']);
  });

  it('reports syntax errors and refuses tags that read other templates', () => {
    expect(engine.check(P, 'Hi {{ user.name ', ITEM)).toEqual([
      { path: P, rule: 'template_syntax', message: 'output "{{ user.name " not closed, line:1, col:4' },
    ]);
    expect(engine.check(P, '{{ user.name | shout }}', ITEM)).toEqual([{ path: P, rule: 'template_syntax', message: 'undefined filter: shout, line:1, col:1' }]);
    expect(engine.check(P, 'a {% include "x" %}', ITEM)).toEqual([
      {
        path: P,
        rule: 'template_tag',
        message: "the include tag reads another template: a campaign's templates are self-contained (include, render, layout are not available), line:1, col:3",
      },
    ]);
  });
});

describe('TemplateEngine.render', () => {
  it('renders user, event and trigger variables as plain text (no HTML escaping)', () => {
    expect(render({ title: 'Hi {{ user.name }} <b>&</b>', body: '{{ event.item.id }} on {{ user.os }} at {{ trigger.time | date: "%H:%M" }}' })).toEqual({
      status: 'rendered',
      content: { title: 'Hi Asha <b>&</b>', body: 'D-1 on android at 03:00' },
    });
  });

  it('skips a user whose variable is missing (null counts as missing) unless a default covers it', () => {
    expect(render({ title: 'Hi {{ user.city }}' })).toEqual({ status: 'skipped', reason: 'template_variable_missing: user.city' });
    expect(render({ title: 'Hi {{ user.profession | upcase }}' })).toEqual({ status: 'skipped', reason: 'template_variable_missing: user.profession' });
    expect(render({ title: 'Hi {{ user.city | default: "friend" }}{% if user.profession %}!{% endif %}' })).toEqual({
      status: 'rendered',
      content: { title: 'Hi friend', body: '' },
    });
  });

  it('reads no prototype properties', () => {
    expect(render({ body: '{{ user.constructor }}' })).toEqual({ status: 'skipped', reason: 'template_variable_missing: user.constructor' });
  });

  it('asks for catalog records not loaded, all of one render at once, then renders with them', () => {
    const records = new CatalogRecords();
    const content = { title: '{{ catalog.drug[event.item.id].name }}', body: '{% for i in event.items %}{{ catalog.drug[i.id].name }};{% endfor %}' };
    expect(render(content, data(), records)).toEqual({
      status: 'needs_catalog',
      refs: [
        { kind: 'drug', id: 'D-1' },
        { kind: 'drug', id: 'D-2' },
      ],
    });
    records.set('drug', 'D-1', { id: 'D-1', name: 'Paracetamol', producer: null });
    records.set('drug', 'D-2', null);
    expect(render(content, data(), records)).toEqual({ status: 'skipped', reason: 'template_variable_missing: catalog.drug.D-2' });
    records.set('drug', 'D-2', { id: 'D-2', name: 'Ibuprofen' });
    expect(render(content, data(), records)).toEqual({ status: 'rendered', content: { title: 'Paracetamol', body: 'Paracetamol;Ibuprofen;' } });
    expect(render({ title: '{{ catalog.drug["D-1"].producer | default: "your pharmacy" }}' }, data(), records)).toEqual({
      status: 'rendered',
      content: { title: 'your pharmacy', body: '' },
    });
  });

  it('reports other failures, such as a limit hit, as template_error', () => {
    expect(render({ body: 'x{% for i in (1..100000000) %}{% endfor %}' })).toEqual({
      status: 'skipped',
      reason: 'template_error: memory alloc limit exceeded, line:1, col:2',
    });
  });
});

describe('TemplateEngine.renderAll', () => {
  it('loads the records every user needs with one call per kind per round, nested lookups in a later round', async () => {
    const calls: [CatalogKind, string[]][] = [];
    const catalog: Record<string, Record<string, Record<string, unknown>>> = {
      drug: { 'D-1': { id: 'D-1', name: 'Paracetamol', supplier_id: 'S-1' }, 'D-2': { id: 'D-2', name: 'Ibuprofen', supplier_id: 'S-2' } },
      site: { 'S-1': { id: 'S-1', name: 'Kathmandu Pharmacy' } },
    };
    const load = (kind: CatalogKind, ids: string[]) => {
      calls.push([kind, ids]);
      return Promise.resolve(new Map(ids.flatMap((id) => (catalog[kind]?.[id] ? [[id, catalog[kind][id]] as const] : []))));
    };
    const compiled = engine.compile({
      title: '{{ catalog.drug[event.item.id].name }}',
      body: 'at {{ catalog.site[catalog.drug[event.item.id].supplier_id].name }}',
    });
    const users = ['D-1', 'D-2', 'D-1', 'D-3'].map((id, i) => data({ user: { id: `u${i}` }, event: { item: { id } } }));
    const outcomes = await engine.renderAll(compiled, users, load, new CatalogRecords());
    expect(calls).toEqual([
      ['drug', ['D-1', 'D-2', 'D-3']],
      ['site', ['S-1', 'S-2']],
    ]);
    expect(outcomes).toEqual([
      { status: 'rendered', content: { title: 'Paracetamol', body: 'at Kathmandu Pharmacy' } },
      { status: 'skipped', reason: 'template_variable_missing: catalog.site.S-2' },
      { status: 'rendered', content: { title: 'Paracetamol', body: 'at Kathmandu Pharmacy' } },
      { status: 'skipped', reason: 'template_variable_missing: catalog.drug.D-3' },
    ]);
  });

  it('asks no more once records are loaded, and gives up past the nesting limit', async () => {
    const records = new CatalogRecords();
    records.set('drug', 'D-1', { id: 'D-1', name: 'Paracetamol' });
    const none = () => Promise.reject(new Error('nothing to load'));
    expect(await engine.renderAll(engine.compile({ title: '{{ catalog.drug["D-1"].name }}', body: '' }), [data()], none, records)).toEqual([
      { status: 'rendered', content: { title: 'Paracetamol', body: '' } },
    ]);
    // Each record names the next: d0 → d1 → d2 → d3 → d4, four levels.
    const chain = (kind: CatalogKind, ids: string[]) => Promise.resolve(new Map(ids.map((id) => [id, { id, name: `d${Number(id.slice(1)) + 1}` }])));
    const deep = engine.compile({ title: '{{ catalog.drug[catalog.drug[catalog.drug[catalog.drug["d0"].name].name].name].name }}', body: '' });
    expect(await engine.renderAll(deep, [data()], chain, new CatalogRecords())).toEqual([
      { status: 'skipped', reason: 'template_error: catalog lookups nest deeper than 3 levels' },
    ]);
  });
});
