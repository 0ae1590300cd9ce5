/** Schemas and values for the SchemaRegistry conformance suite: every Avro shape producers use. */

const namespace = 'evp.conformance';

export const orderSchema = {
  type: 'record',
  name: 'Order',
  namespace,
  fields: [
    { name: 'id', type: 'string' },
    { name: 'count', type: 'int' },
    { name: 'amount_micros', type: 'long' },
    { name: 'price', type: 'double' },
    { name: 'paid', type: 'boolean' },
    { name: 'note', type: ['null', 'string'], default: null },
    { name: 'status', type: { type: 'enum', name: 'Status', symbols: ['NEW', 'PAID', 'SHIPPED'] } },
    {
      name: 'customer',
      type: {
        type: 'record',
        name: 'Customer',
        fields: [
          { name: 'email', type: 'string' },
          { name: 'vip', type: ['null', 'boolean'], default: null },
        ],
      },
    },
    {
      name: 'items',
      type: {
        type: 'array',
        items: {
          type: 'record',
          name: 'Item',
          fields: [
            { name: 'sku', type: 'string' },
            { name: 'qty', type: 'int' },
          ],
        },
      },
    },
    { name: 'tags', type: { type: 'map', values: 'string' } },
    { name: 'checksum', type: 'bytes' },
  ],
};

export const fullOrder = {
  id: 'ord-1',
  count: 2147483647,
  // avsc's default long accepts |n| <= 2^53 - 2; larger values need a BigInt long type.
  amount_micros: 9007199254740990,
  price: 12.5,
  paid: true,
  note: 'leave at the door',
  status: 'PAID',
  customer: { email: 'a@example.com', vip: true },
  items: [
    { sku: 'sku-1', qty: 1 },
    { sku: 'sku-2', qty: 3 },
  ],
  tags: { channel: 'web', 'utm.source': 'mail' },
  checksum: Buffer.from([0, 1, 127, 128, 255]),
};

/** Nulls, negative extremes and empty collections: where encoders tend to slip. */
export const sparseOrder = {
  id: '',
  count: -2147483648,
  amount_micros: -9007199254740990,
  price: -0.25,
  paid: false,
  note: null,
  status: 'NEW',
  customer: { email: 'b@example.com', vip: null },
  items: [],
  tags: {},
  checksum: Buffer.alloc(0),
};

/** A small record for evolution tests. */
export const userV1 = {
  type: 'record',
  name: 'User',
  namespace,
  fields: [
    { name: 'id', type: 'string' },
    { name: 'age', type: 'int' },
  ],
};

/** BACKWARD compatible with v1: the added field has a default. */
export const userV2WithDefault = {
  ...userV1,
  fields: [...userV1.fields, { name: 'country', type: 'string', default: 'unknown' }],
};

/** Not BACKWARD compatible: new readers could not fill `country` from v1 data. */
export const userV2WithoutDefault = {
  ...userV1,
  fields: [...userV1.fields, { name: 'country', type: 'string' }],
};

/** Not BACKWARD compatible: an int cannot be read as a string. */
export const userAgeAsString = {
  ...userV1,
  fields: [
    { name: 'id', type: 'string' },
    { name: 'age', type: 'string' },
  ],
};

/** userV1 with keys in another order: the same schema to any registry. */
export const userV1Reordered = {
  fields: [
    { type: 'string', name: 'id' },
    { type: 'int', name: 'age' },
  ],
  namespace,
  name: 'User',
  type: 'record',
};
