import { InvalidSchemaError, canonicalSchema, parseAvroSchema, schemaFingerprint } from './avro-schema';

const user = {
  type: 'record',
  name: 'User',
  namespace: 'evp.test',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'tags', type: { type: 'map', values: 'string' }, default: { b: '2', a: '1' } },
  ],
};

describe('canonicalSchema / schemaFingerprint', () => {
  it('ignores key order, whitespace and {"type": primitive} spelled out', () => {
    const respelled = {
      fields: [
        { type: { type: 'string' }, name: 'id' },
        { default: { a: '1', b: '2' }, type: { values: 'string', type: 'map' }, name: 'tags' },
      ],
      namespace: 'evp.test',
      name: 'User',
      type: 'record',
    };
    expect(canonicalSchema(respelled)).toBe(canonicalSchema(user));
    expect(canonicalSchema(JSON.stringify(user, null, 2))).toBe(canonicalSchema(user));
    expect(schemaFingerprint(respelled)).toBe(schemaFingerprint(user));
  });

  it('keeps what changes decoding: defaults, field order, docs and logical types', () => {
    const variants = [
      { ...user, fields: [user.fields[0], { ...user.fields[1], default: {} }] },
      { ...user, fields: [user.fields[1], user.fields[0]] },
      { ...user, doc: 'a user' },
      { ...user, fields: [user.fields[0], user.fields[1], { name: 'at', type: { type: 'long', logicalType: 'timestamp-millis' } }] },
    ];
    const fingerprints = new Set([user, ...variants].map((s) => schemaFingerprint(s)));
    expect(fingerprints.size).toBe(variants.length + 1);
  });

  it('is a hex SHA-256', () => {
    expect(schemaFingerprint('"string"')).toMatch(/^[0-9a-f]{64}$/);
    expect(canonicalSchema({ type: 'string' })).toBe('"string"');
  });
});

describe('parseAvroSchema', () => {
  it('accepts an object or its JSON text', () => {
    expect(parseAvroSchema(user).name).toBe('evp.test.User');
    expect(parseAvroSchema(JSON.stringify(user)).name).toBe('evp.test.User');
  });

  it.each([
    ['text that is not JSON', '{"type": '],
    ['an unknown type', { type: 'record', name: 'R', fields: [{ name: 'a', type: 'integer' }] }],
    ['a default of the wrong type', { type: 'record', name: 'R', fields: [{ name: 'a', type: 'int', default: 'x' }] }],
    ['a record without fields', { type: 'record', name: 'R' }],
  ])('rejects %s with InvalidSchemaError', (_label, schema) => {
    expect(() => parseAvroSchema(schema)).toThrow(InvalidSchemaError);
  });
});
