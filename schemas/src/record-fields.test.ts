import { CANONICAL_FIELDS } from './canonical-fields';
import { avroFieldsOf, type RecordField } from './record-fields';
import { REJECTED_FIELDS } from './rejected';
import { DEAD_LETTER_FIELDS } from './dead-letter-fields';
import { MEMBERSHIP_FIELDS } from './membership';

const tables: [string, readonly RecordField[]][] = [
  ['CANONICAL_FIELDS', CANONICAL_FIELDS],
  ['REJECTED_FIELDS', REJECTED_FIELDS],
  ['DEAD_LETTER_FIELDS', DEAD_LETTER_FIELDS],
  ['MEMBERSHIP_FIELDS', MEMBERSHIP_FIELDS],
];

describe.each(tables)('%s', (_, fields) => {
  it('names each field once', () => {
    expect(new Set(fields.map((f) => f.name)).size).toBe(fields.length);
  });

  it('makes a column Nullable exactly when the field is nullable (a JSON object column holds {} instead)', () => {
    const mismatched = fields.filter(
      (f) => f.clickhouse !== undefined && f.kind !== 'jsonObject' && (f.nullable === true) !== f.clickhouse.includes('Nullable('),
    );
    expect(mismatched.map((f) => f.name)).toEqual([]);
  });

  it('gives every enum its symbols and every reason list its Avro record name', () => {
    expect(fields.filter((f) => f.kind === 'enum' && !(f.symbols && f.symbols.length > 0)).map((f) => f.name)).toEqual([]);
    expect(fields.filter((f) => f.kind === 'reasons' && !f.avroRecord).map((f) => f.name)).toEqual([]);
  });
});

describe('avroFieldsOf', () => {
  it('gives the canonical head: every field but props, JSON fields as <name>_json text, nullable ones defaulting to null', () => {
    const head = avroFieldsOf(CANONICAL_FIELDS);
    expect(head).toHaveLength(CANONICAL_FIELDS.length - 1);
    expect(head.slice(-6).map((f) => f.name)).toEqual(['request_id', 'pseudonym_key', 'envelope', 'meta_json', 'client_json', 'warnings']);
    expect(head.find((f) => f.name === 'meta_json')).toEqual({ name: 'meta_json', type: ['null', 'string'], default: null });
    expect(head.find((f) => f.name === 'time')).toEqual({ name: 'time', type: 'long', doc: 'UTC epoch ms' });
  });
});
