import { FLAT_CTX_MAPPINGS } from './mappings';
import { rebuildFlatCtx } from './rebuild';

const P = '$.data[0].ctx';
const spec = (...keys: string[]) => new Set(keys);

describe('rebuildFlatCtx: the flattened ctx back in the spec shape', () => {
  it('rebuilds a nested object from flat keys, one flattened_object warning per object', () => {
    const r = rebuildFlatCtx(
      FLAT_CTX_MAPPINGS.identify!,
      { action: 'blocked', reason: 'fraud', remarks: 'chargebacks' },
      P,
      spec('action', 'referral_code', 'blocked'),
    );
    expect(r).toEqual({
      moved: true,
      props: { action: 'blocked', blocked: { reason: 'fraud', remarks: 'chargebacks' } },
      warnings: [{ path: `${P}.blocked`, rule: 'flattened_object', message: expect.stringContaining('reason, remarks') }],
    });
  });

  it('has no plain renames: a client name of a spec property is the definition’s (client.aliases, property_alias)', () => {
    const plain = Object.entries(FLAT_CTX_MAPPINGS).flatMap(([event, m]) =>
      Object.entries(m.keys).flatMap(([key, t]) =>
        (Array.isArray(t) ? t : [t]).filter((x) => typeof x === 'string' && !/[.[]/.test(x)).map((x) => `${event}: ${key} → ${String(x)}`),
      ),
    );
    expect(plain).toEqual([]);
  });

  it('splits a joined list into one object per part', () => {
    const r = rebuildFlatCtx(FLAT_CTX_MAPPINGS.search!, { query: 'q', results_list: 'd-1, d-2' }, P, spec('query', 'module', 'page', 'filter', 'results_list'));
    expect(r.props).toEqual({ query: 'q', results_list: [{ id: 'd-1' }, { id: 'd-2' }] });
    expect(r.warnings.map((w) => [w.path, w.rule])).toEqual([[`${P}.results_list`, 'joined_list']]);
  });

  it('zips several joined lists into one list by position, only when their part counts agree', () => {
    const keys = spec('action', 'survey', 'response');
    const zipped = rebuildFlatCtx(
      FLAT_CTX_MAPPINGS.survey!,
      { action: 'submit', survey_id: 's', survey_questions: 'q1, q2', response_list: 'yes, no' },
      P,
      keys,
    );
    expect(zipped.props).toEqual({
      action: 'submit',
      survey: { id: 's' },
      response: [
        { question: 'q1', response: 'yes' },
        { question: 'q2', response: 'no' },
      ],
    });
    // "a, b" inside one question makes the counts differ: which answer goes with which question is unknown.
    const uneven = rebuildFlatCtx(
      FLAT_CTX_MAPPINGS.survey!,
      { action: 'submit', survey_id: 's', survey_questions: 'Red, green or blue?', response_list: 'red' },
      P,
      keys,
    );
    expect(uneven.props).toEqual({ action: 'submit', survey: { id: 's' }, survey_questions: 'Red, green or blue?', response_list: 'red' });
  });

  it('puts the one item of a per-item event into its list, copies the currency and flags the ambiguous id', () => {
    const ctx = { id: 'order-1', type: 'drug', quantity: 2, price: 12.5, currency: 'PKR', cart_id: 'c-1', cart_price: 25, is_successful: 1 };
    const r = rebuildFlatCtx(FLAT_CTX_MAPPINGS.checkout!, ctx, P, spec('id', 'cart_id', 'cart_price', 'currency', 'shop_mode', 'items', 'is_successful'));
    expect(r.props).toEqual({
      id: 'order-1',
      cart_id: 'c-1',
      cart_price: 25,
      is_successful: 1,
      currency: 'PKR',
      items: [{ id: 'order-1', type: 'drug', quantity: 2, price: 12.5, currency: 'PKR' }],
    });
    expect(r.warnings.map((w) => [w.path, w.rule])).toEqual([
      [`${P}.id`, 'ambiguous_flattened_key'],
      [`${P}.items[0].id`, 'ambiguous_flattened_key'],
      [`${P}.currency`, 'copied_from_item'],
      [`${P}.items`, 'flattened_object'],
    ]);
  });

  it('moves a flat key off a spec name for the client known to flatten (Kenkai cart: id → item.id; cart_id is the definition’s)', () => {
    const ctx = { cart_id: 'c-1', action: 'add_item', id: 'd-1', currency: 'PKR' };
    const keys = spec('id', 'action', 'cart_price', 'currency', 'item');
    const r = rebuildFlatCtx(FLAT_CTX_MAPPINGS.cart!, ctx, P, keys, true);
    expect(r.props).toEqual({ cart_id: 'c-1', action: 'add_item', item: { id: 'd-1', currency: 'PKR' }, currency: 'PKR' });
    // From a client not known to flatten, only spec names: the spec shape, left alone.
    expect(rebuildFlatCtx(FLAT_CTX_MAPPINGS.cart!, ctx, P, keys)).toEqual({ props: ctx, warnings: [], moved: false });
  });

  it('warns when the client copied one value into another key (item_report store id = remarks)', () => {
    const ctx = { item_id: 'd-1', item_type: 'drug', report_id: 'r-1', report_remarks: 'seal broken', store_id: 'seal broken' };
    const r = rebuildFlatCtx(FLAT_CTX_MAPPINGS.item_report!, ctx, P, spec('item', 'store_info', 'report_info'));
    expect(r.props).toEqual({ item: { id: 'd-1', type: 'drug' }, report_info: { id: 'r-1', remarks: 'seal broken' }, store_info: { id: 'seal broken' } });
    expect(r.warnings.map((w) => [w.path, w.rule])).toContainEqual([`${P}.store_info.id`, 'store_id_is_remarks']);
  });

  it('leaves a ctx in the spec shape alone, also one that misses a property', () => {
    const specCart = { id: 'c-1', action: 'add_item', cart_price: 25, currency: 'PKR' }; // no item: the validator says required
    expect(rebuildFlatCtx(FLAT_CTX_MAPPINGS.cart!, specCart, P, spec('id', 'action', 'cart_price', 'currency', 'item'))).toEqual({
      props: specCart,
      warnings: [],
      moved: false,
    });
    const specSearch = { query: 'q', module: 'core', results_list: [{ id: 'd-1', type: 'drug' }] };
    expect(rebuildFlatCtx(FLAT_CTX_MAPPINGS.search!, specSearch, P, spec('query', 'module', 'page', 'filter', 'results_list')).moved).toBe(false);
    const specItem = { action: 'view', item: { id: 'd-1' }, type: 'x' };
    expect(rebuildFlatCtx(FLAT_CTX_MAPPINGS.item!, specItem, P, spec('action', 'item')).props).toBe(specItem);
  });
});
