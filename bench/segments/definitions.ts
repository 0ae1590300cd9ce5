/**
 * The definitions bench/segments times, over the generated data set (dataset.ts). The five-condition
 * segment mixes every cost a definition can have: a counted event with a property predicate, a sum
 * of a numeric property, a user catalog field (joined), last seen (which reads every event of the
 * user, so no name filter applies) and a catalog predicate through an array of items.
 */
const FIVE_CONDITIONS = {
  all: [
    { event: 'checkout', where: [{ prop: 'is_successful', op: 'eq', value: true }], count: { gte: 2 }, within: 'P90D' },
    { aggregate: { event: 'checkout', prop: 'cart_price', fn: 'sum' }, op: 'gt', value: 500, within: 'P30D' },
    { profile: 'country', op: 'eq', value: 'Kenya' },
    { not: { last_seen: { before: 'P7D' } } },
    {
      event: 'checkout',
      where: [{ catalog: 'drug', via: 'items[].id', where: [{ prop: 'atc_anatomical_group', op: 'eq', value: 'A' }] }],
      within: 'P90D',
    },
  ],
};

/**
 * The same five kinds over all history: no window, so every event of the user is read (and every
 * checkout's properties): what the properties cost when no time span can be skipped.
 */
const FIVE_CONDITIONS_ALL_HISTORY = {
  all: [
    { event: 'checkout', where: [{ prop: 'is_successful', op: 'eq', value: true }], count: { gte: 10 } },
    { aggregate: { event: 'checkout', prop: 'cart_price', fn: 'sum' }, op: 'gt', value: 4000 },
    { profile: 'country', op: 'eq', value: 'Kenya' },
    { not: { last_seen: { before: 'P7D' } } },
    { event: 'checkout', where: [{ catalog: 'drug', via: 'items[].id', where: [{ prop: 'atc_anatomical_group', op: 'eq', value: 'A' }] }] },
  ],
};

export interface BenchDefinition {
  label: string;
  definition: unknown;
}

/** Windows let the compiled query skip the history outside them; the bare query reads it all. */
export const DEFINITIONS: BenchDefinition[] = [
  { label: '5 conditions (props, sum, profile, last_seen, catalog)', definition: FIVE_CONDITIONS },
  { label: '5 conditions over all history (no window)', definition: FIVE_CONDITIONS_ALL_HISTORY },
  { label: '1 condition, no props: page ≥ 5 in P30D', definition: { event: 'page', count: { gte: 5 }, within: 'P30D' } },
  {
    label: '1 condition with a prop: successful checkout ≥ 2 in P90D',
    definition: FIVE_CONDITIONS.all[0],
  },
  { label: '1 aggregate: sum(cart_price) of checkouts > 500 in P30D', definition: FIVE_CONDITIONS.all[1] },
  { label: '1 catalog predicate: checkout of an ATC-A drug in P90D', definition: FIVE_CONDITIONS.all[4] },
  { label: '1 condition on every event: last_seen within P7D', definition: { last_seen: { within: 'P7D' } } },
];
