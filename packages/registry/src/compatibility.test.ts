import { parseAvroSchema } from './avro-schema';
import { type CompatibilityLevel, compatibilityProblems, parseCompatibilityLevel, resolutionProblem } from './compatibility';

const record = (fields: object[], name = 'Event') => ({ type: 'record', name, namespace: 'evp.test', fields });
const withStatus = (symbols: string[], extra: object = {}) => record([{ name: 'status', type: { type: 'enum', name: 'Status', symbols, ...extra } }]);

const base = record([
  { name: 'id', type: 'string' },
  { name: 'count', type: 'int' },
]);

/** [change, old schema, new schema, BACKWARD compatible?] */
const backwardTable: Array<[string, object, object, boolean]> = [
  ['identical schema', base, base, true],
  ['adding a field with a default', base, record([...base.fields, { name: 'country', type: 'string', default: 'xx' }]), true],
  ['adding a nullable field defaulting to null', base, record([...base.fields, { name: 'note', type: ['null', 'string'], default: null }]), true],
  ['adding a field without a default', base, record([...base.fields, { name: 'country', type: 'string' }]), false],
  ['removing a field', base, record([{ name: 'id', type: 'string' }]), true],
  [
    'changing int to string',
    base,
    record([
      { name: 'id', type: 'string' },
      { name: 'count', type: 'string' },
    ]),
    false,
  ],
  [
    'promoting int to long',
    base,
    record([
      { name: 'id', type: 'string' },
      { name: 'count', type: 'long' },
    ]),
    true,
  ],
  [
    'promoting int to double',
    base,
    record([
      { name: 'id', type: 'string' },
      { name: 'count', type: 'double' },
    ]),
    true,
  ],
  ['narrowing long to int', record([{ name: 'n', type: 'long' }]), record([{ name: 'n', type: 'int' }]), false],
  [
    'making a field nullable',
    base,
    record([
      { name: 'id', type: ['null', 'string'] },
      { name: 'count', type: 'int' },
    ]),
    true,
  ],
  ['making a nullable field required', record([{ name: 'id', type: ['null', 'string'] }]), record([{ name: 'id', type: 'string' }]), false],
  ['adding an enum symbol', withStatus(['NEW', 'PAID']), withStatus(['NEW', 'PAID', 'SHIPPED']), true],
  ['removing an enum symbol', withStatus(['NEW', 'PAID']), withStatus(['NEW']), false],
  ['removing an enum symbol when the enum has a default', withStatus(['NEW', 'PAID']), withStatus(['NEW', 'OTHER'], { default: 'OTHER' }), true],
  ['renaming the record', base, record(base.fields, 'Renamed'), false],
  ['renaming the record with an alias to the old name', base, { ...record(base.fields, 'Renamed'), aliases: ['Event'] }, true],
  [
    'renaming a field with an alias',
    base,
    record([
      { name: 'key', type: 'string', aliases: ['id'] },
      { name: 'count', type: 'int' },
    ]),
    true,
  ],
];

const backwardCases = backwardTable.map(([change, oldSchema, newSchema, compatible]) => ({ change, oldSchema, newSchema, compatible }));

describe('BACKWARD compatibility (new schema reads data written with the old one)', () => {
  it.each(backwardCases)('$change → compatible: $compatible', ({ oldSchema, newSchema, compatible }) => {
    const problems = compatibilityProblems(parseAvroSchema(newSchema), [parseAvroSchema(oldSchema)], 'BACKWARD');
    expect(problems.length === 0).toBe(compatible);
  });

  it('names the problem, e.g. the field without a default', () => {
    const problems = compatibilityProblems(parseAvroSchema(record([...base.fields, { name: 'country', type: 'string' }])), [parseAvroSchema(base)], 'BACKWARD');
    expect(problems).toEqual([
      'new schema cannot read data written with the latest schema (BACKWARD): no matching field for default-less evp.test.Event.country',
    ]);
  });
});

describe('the other levels', () => {
  const v1 = parseAvroSchema(base);
  const addedWithDefault = parseAvroSchema(record([...base.fields, { name: 'c', type: 'string', default: '' }]));
  const addedWithoutDefault = parseAvroSchema(record([...base.fields, { name: 'c', type: 'string' }]));
  const removedCount = parseAvroSchema(record([{ name: 'id', type: 'string' }]));
  const typeChanged = parseAvroSchema(
    record([
      { name: 'id', type: 'string' },
      { name: 'count', type: 'string' },
    ]),
  );

  const verdict = (candidate: typeof v1, previous: Array<typeof v1>, level: CompatibilityLevel) =>
    compatibilityProblems(candidate, previous, level).length === 0;

  it('FORWARD: old readers must read new data, so adding a required field is fine but removing one is not', () => {
    expect(verdict(addedWithoutDefault, [v1], 'FORWARD')).toBe(true);
    expect(verdict(removedCount, [v1], 'FORWARD')).toBe(false);
  });

  it('FULL: both directions, so only changes with defaults pass', () => {
    expect(verdict(addedWithDefault, [v1], 'FULL')).toBe(true);
    expect(verdict(addedWithoutDefault, [v1], 'FULL')).toBe(false);
    expect(verdict(removedCount, [v1], 'FULL')).toBe(false);
  });

  it('NONE: anything goes', () => {
    expect(verdict(typeChanged, [v1], 'NONE')).toBe(true);
  });

  it('BACKWARD looks at the latest schema only; BACKWARD_TRANSITIVE at all of them', () => {
    // v1 had count:int, v2 dropped it, v3 brings it back as a string without a default.
    const v3 = parseAvroSchema(
      record([
        { name: 'id', type: 'string' },
        { name: 'count', type: 'string', default: '' },
      ]),
    );
    expect(verdict(v3, [v1, removedCount], 'BACKWARD')).toBe(true);
    expect(verdict(v3, [v1, removedCount], 'BACKWARD_TRANSITIVE')).toBe(false);
    expect(compatibilityProblems(v3, [v1, removedCount], 'BACKWARD_TRANSITIVE')).toEqual([
      'new schema cannot read data written with schema #1 of 2 (BACKWARD_TRANSITIVE): cannot read "int" as "string"',
    ]);
  });

  it('FORWARD_TRANSITIVE and FULL_TRANSITIVE check every earlier schema', () => {
    // v2 gave count a default, so v2 readers survive its removal; v1 readers do not.
    const countDefaulted = parseAvroSchema(
      record([
        { name: 'id', type: 'string' },
        { name: 'count', type: 'int', default: 0 },
      ]),
    );
    expect(verdict(removedCount, [v1, countDefaulted], 'FORWARD')).toBe(true);
    expect(verdict(removedCount, [v1, countDefaulted], 'FORWARD_TRANSITIVE')).toBe(false);
    expect(verdict(removedCount, [v1, countDefaulted], 'FULL')).toBe(true);
    expect(verdict(removedCount, [v1, countDefaulted], 'FULL_TRANSITIVE')).toBe(false);
    expect(verdict(countDefaulted, [v1, addedWithDefault], 'FULL_TRANSITIVE')).toBe(true);
  });

  it('a first schema is always compatible', () => {
    expect(verdict(typeChanged, [], 'FULL_TRANSITIVE')).toBe(true);
  });
});

describe('resolutionProblem', () => {
  it('is undefined when the reader can decode the writer and explains otherwise', () => {
    expect(resolutionProblem(parseAvroSchema('"long"'), parseAvroSchema('"int"'))).toBeUndefined();
    expect(resolutionProblem(parseAvroSchema('"int"'), parseAvroSchema('"long"'))).toBe('cannot read "long" as "int"');
  });
});

describe('parseCompatibilityLevel', () => {
  it('accepts every Confluent level in any case and nothing else', () => {
    expect(parseCompatibilityLevel('backward_transitive')).toBe('BACKWARD_TRANSITIVE');
    expect(parseCompatibilityLevel('FULL')).toBe('FULL');
    expect(parseCompatibilityLevel('SIDEWAYS')).toBeUndefined();
    expect(parseCompatibilityLevel(42)).toBeUndefined();
  });
});
