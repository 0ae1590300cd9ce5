import { SchemaStoreError, createSchemaStore } from './schema-store';

const user = (...extra: object[]) => ({
  type: 'record',
  name: 'User',
  namespace: 'evp.test',
  fields: [{ name: 'id', type: 'string' }, ...extra],
});
const v1 = user();
const v2 = user({ name: 'age', type: 'int', default: 0 });
const incompatible = user({ name: 'age', type: 'int' });
const other = { type: 'record', name: 'Other', fields: [{ name: 'x', type: 'int' }] };

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof SchemaStoreError) return err.code;
    throw err;
  }
  return undefined;
}

describe('SchemaStore ids and versions', () => {
  it('hands out global ids from 1 and per-subject versions from 1', () => {
    const store = createSchemaStore();
    expect(store.register('a', v1)).toEqual({ id: 1, version: 1 });
    expect(store.register('b', other)).toEqual({ id: 2, version: 1 });
    expect(store.register('a', v2)).toEqual({ id: 3, version: 2 });
  });

  it('gives the same schema the same id, in the same subject and across subjects', () => {
    const store = createSchemaStore();
    const first = store.register('a', v1);
    expect(store.register('a', JSON.stringify(v1, null, 2))).toEqual(first);
    expect(store.register('b', v1)).toEqual({ id: first.id, version: 1 });
    expect(store.subjectVersionsOfId(first.id)).toEqual([
      { subject: 'a', version: 1 },
      { subject: 'b', version: 1 },
    ]);
  });

  it('returns the existing version of a schema registered before, even if older than the latest', () => {
    const store = createSchemaStore();
    store.register('a', v1);
    store.register('a', v2);
    expect(store.register('a', v1)).toEqual({ id: 1, version: 1 });
  });

  it('keeps the first registration text for GET /schemas/ids/{id}', () => {
    const store = createSchemaStore();
    const { id } = store.register('a', JSON.stringify(v1, null, 2));
    expect(store.schemaById(id).schema).toBe(JSON.stringify(v1));
    expect(codeOf(() => store.schemaById(99))).toBe('schema_not_found');
  });
});

describe('SchemaStore compatibility on register', () => {
  it('rejects a BACKWARD-incompatible schema by default and names the subject', () => {
    const store = createSchemaStore();
    store.register('a', v1);
    expect(codeOf(() => store.register('a', incompatible))).toBe('incompatible');
    expect(() => store.register('a', incompatible)).toThrow(
      /^Schema being registered is incompatible with an earlier schema for subject "a", details: \[new schema cannot read/,
    );
    expect(store.versions('a')).toEqual([1]);
  });

  it('follows the subject level over the global one', () => {
    const store = createSchemaStore({ compatibility: 'FULL' });
    store.register('a', v1);
    expect(codeOf(() => store.register('a', incompatible))).toBe('incompatible');
    store.setSubjectCompatibility('a', 'none');
    expect(store.register('a', incompatible).version).toBe(2);
    expect(store.effectiveCompatibility('a')).toBe('NONE');
    expect(store.effectiveCompatibility('b')).toBe('FULL');
  });

  it('rejects invalid schemas and invalid levels', () => {
    const store = createSchemaStore();
    expect(codeOf(() => store.register('a', '{"type": "record"}'))).toBe('invalid_schema');
    expect(codeOf(() => store.register('a', 'not json'))).toBe('invalid_schema');
    expect(codeOf(() => store.setGlobalCompatibility('SIDEWAYS'))).toBe('invalid_compatibility_level');
    expect(codeOf(() => store.setSubjectCompatibility('a', undefined))).toBe('invalid_compatibility_level');
  });

  it('answers compatibility questions against one version or against what registration would check', () => {
    const store = createSchemaStore();
    store.register('a', v1);
    store.register('a', v2);
    // v2 data carries `age`, so a reader requiring it copes; v1 data does not.
    expect(store.compatibilityProblems('a', 'latest', incompatible)).toEqual([]);
    expect(store.compatibilityProblems('a', 1, incompatible)).toHaveLength(1);
    expect(store.compatibilityProblems('a', undefined, incompatible)).toEqual([]);
    store.setSubjectCompatibility('a', 'BACKWARD_TRANSITIVE');
    expect(store.compatibilityProblems('a', undefined, incompatible)).toHaveLength(1);
    expect(store.compatibilityProblems('new-subject', undefined, incompatible)).toEqual([]);
    expect(codeOf(() => store.compatibilityProblems('new-subject', 'latest', v1))).toBe('subject_not_found');
  });
});

describe('SchemaStore lookups', () => {
  const store = createSchemaStore();
  store.register('a', v1);
  store.register('a', v2);

  it('finds versions by number, "latest" and -1', () => {
    expect(store.version('a', 1)).toEqual({ subject: 'a', version: 1, id: 1, schema: JSON.stringify(v1) });
    expect(store.version('a', 'latest').version).toBe(2);
    expect(store.version('a', '-1').version).toBe(2);
  });

  it.each([
    ['a', '3', 'version_not_found'],
    ['a', '0', 'invalid_version'],
    ['a', 'abc', 'invalid_version'],
    ['a', '2147483648', 'invalid_version'],
    ['nope', '1', 'subject_not_found'],
    ['nope', 'abc', 'invalid_version'],
  ])('subject %s version %s → %s', (subject, version, code) => {
    expect(codeOf(() => store.version(subject, version))).toBe(code);
  });

  it('looks a schema up under a subject', () => {
    expect(store.lookup('a', v2)).toEqual({ subject: 'a', version: 2, id: 2, schema: JSON.stringify(v2) });
    expect(codeOf(() => store.lookup('a', other))).toBe('schema_not_found');
    expect(codeOf(() => store.lookup('nope', v1))).toBe('subject_not_found');
  });
});

describe('SchemaStore deletes', () => {
  it('soft-deletes, hides, then lets the subject start over with new version numbers', () => {
    const store = createSchemaStore();
    store.register('a', v1);
    store.register('a', v2);
    expect(store.deleteSubject('a')).toEqual([1, 2]);
    expect(store.subjects()).toEqual([]);
    expect(store.subjects({ deleted: true })).toEqual(['a']);
    expect(codeOf(() => store.versions('a'))).toBe('subject_not_found');
    expect(store.versions('a', { deleted: true })).toEqual([1, 2]);
    expect(store.version('a', 1, { deleted: true }).id).toBe(1);
    // Deleted versions neither constrain compatibility nor free their numbers; ids stay stable.
    expect(store.register('a', incompatible)).toEqual({ id: 3, version: 3 });
    expect(store.register('a', v1)).toEqual({ id: 1, version: 4 });
  });

  it('insists on a soft delete before a permanent one, and forgets the subject after it', () => {
    const store = createSchemaStore();
    store.register('a', v1);
    store.setSubjectCompatibility('a', 'NONE');
    expect(codeOf(() => store.deleteSubject('a', { permanent: true }))).toBe('subject_not_soft_deleted');
    store.deleteSubject('a');
    expect(codeOf(() => store.deleteSubject('a'))).toBe('subject_soft_deleted');
    expect(store.deleteSubject('a', { permanent: true })).toEqual([1]);
    expect(store.subjects({ deleted: true })).toEqual([]);
    expect(store.subjectCompatibility('a')).toBeUndefined();
    expect(store.register('a', v1)).toEqual({ id: 1, version: 1 });
    expect(codeOf(() => store.deleteSubject('nope'))).toBe('subject_not_found');
  });
});
