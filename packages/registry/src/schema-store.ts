import type { Type } from 'avsc';
import { InvalidSchemaError, parseAvroSchema, schemaFingerprint } from './avro-schema';
import { COMPATIBILITY_LEVELS, type CompatibilityLevel, DEFAULT_COMPATIBILITY, compatibilityProblems, parseCompatibilityLevel } from './compatibility';

/**
 * Registry semantics in memory for the in-process registry (embedded mode), with Confluent's
 * rules: ids are global and never reused, the same schema (by canonical form) keeps its id across
 * subjects, versions count per subject and are never reused either, deletes are soft unless made
 * permanent after a soft delete.
 */

export type SchemaStoreErrorCode =
  | 'subject_not_found'
  | 'version_not_found'
  | 'schema_not_found'
  | 'subject_soft_deleted'
  | 'subject_not_soft_deleted'
  | 'subject_compatibility_not_configured'
  | 'incompatible'
  | 'invalid_schema'
  | 'invalid_version'
  | 'invalid_compatibility_level';

export class SchemaStoreError extends Error {
  readonly code: SchemaStoreErrorCode;
  constructor(code: SchemaStoreErrorCode, message: string) {
    super(message);
    this.name = 'SchemaStoreError';
    this.code = code;
  }
}

export interface StoredSchema {
  id: number;
  /** The JSON text of the first registration, compacted (what GET /schemas/ids/{id} returns). */
  schema: string;
  type: Type;
}

export interface SubjectVersion {
  subject: string;
  version: number;
  id: number;
  schema: string;
}

export type VersionSpec = number | string;

interface VersionEntry {
  version: number;
  id: number;
  deleted: boolean;
}

interface Parsed {
  text: string;
  type: Type;
  fingerprint: string;
}

export class SchemaStore {
  private nextId = 1;
  private readonly schemasById = new Map<number, StoredSchema>();
  private readonly idsByFingerprint = new Map<string, number>();
  private readonly fingerprintsById = new Map<number, string>();
  private readonly subjectEntries = new Map<string, VersionEntry[]>();
  private readonly subjectLevels = new Map<string, CompatibilityLevel>();
  private globalLevel: CompatibilityLevel;

  constructor(opts: { compatibility?: CompatibilityLevel } = {}) {
    this.globalLevel = opts.compatibility ?? DEFAULT_COMPATIBILITY;
  }

  register(subject: string, schema: string | object): { id: number; version: number } {
    const parsed = parse(schema);
    const entries = this.subjectEntries.get(subject) ?? [];
    const live = entries.filter((e) => !e.deleted);
    const same = live.find((e) => this.fingerprintOf(e.id) === parsed.fingerprint);
    // Re-registering is idempotent and skips the compatibility check, as in Confluent.
    if (same) return { id: same.id, version: same.version };

    const level = this.effectiveCompatibility(subject);
    const problems = compatibilityProblems(
      parsed.type,
      live.map((e) => this.stored(e.id).type),
      level,
    );
    if (problems.length > 0) {
      throw new SchemaStoreError(
        'incompatible',
        `Schema being registered is incompatible with an earlier schema for subject "${subject}", details: [${problems.join('; ')}]`,
      );
    }

    const id = this.idFor(parsed);
    const version = entries.reduce((max, e) => Math.max(max, e.version), 0) + 1;
    entries.push({ version, id, deleted: false });
    this.subjectEntries.set(subject, entries);
    return { id, version };
  }

  lookup(subject: string, schema: string | object, opts: { deleted?: boolean } = {}): SubjectVersion {
    const entries = this.entriesOf(subject, opts);
    const parsed = parse(schema);
    const entry = entries.find((e) => this.fingerprintOf(e.id) === parsed.fingerprint);
    if (!entry) throw new SchemaStoreError('schema_not_found', 'Schema not found');
    return this.subjectVersion(subject, entry);
  }

  schemaById(id: number): StoredSchema {
    return this.stored(id);
  }

  subjectVersionsOfId(id: number, opts: { deleted?: boolean } = {}): Array<{ subject: string; version: number }> {
    this.stored(id);
    const found: Array<{ subject: string; version: number }> = [];
    for (const [subject, entries] of this.subjectEntries) {
      for (const e of entries) if (e.id === id && (opts.deleted || !e.deleted)) found.push({ subject, version: e.version });
    }
    return found;
  }

  subjects(opts: { deleted?: boolean } = {}): string[] {
    return [...this.subjectEntries]
      .filter(([, entries]) => entries.some((e) => opts.deleted || !e.deleted))
      .map(([subject]) => subject)
      .sort();
  }

  versions(subject: string, opts: { deleted?: boolean } = {}): number[] {
    return this.entriesOf(subject, opts).map((e) => e.version);
  }

  version(subject: string, spec: VersionSpec, opts: { deleted?: boolean } = {}): SubjectVersion {
    const wanted = parseVersion(spec);
    const entries = this.entriesOf(subject, opts);
    const entry = wanted === 'latest' ? entries[entries.length - 1] : entries.find((e) => e.version === wanted);
    if (!entry) throw new SchemaStoreError('version_not_found', `Version ${String(spec)} not found.`);
    return this.subjectVersion(subject, entry);
  }

  /** Returns the versions it deleted. Soft first, then permanent, as Confluent insists. */
  deleteSubject(subject: string, opts: { permanent?: boolean } = {}): number[] {
    const entries = this.subjectEntries.get(subject);
    if (!entries || entries.length === 0) throw subjectNotFound(subject);
    const live = entries.filter((e) => !e.deleted);
    if (opts.permanent) {
      if (live.length > 0) {
        throw new SchemaStoreError('subject_not_soft_deleted', `Subject '${subject}' was not deleted first before being permanently deleted`);
      }
      this.subjectEntries.delete(subject);
      this.subjectLevels.delete(subject);
      return entries.map((e) => e.version);
    }
    if (live.length === 0) {
      throw new SchemaStoreError('subject_soft_deleted', `Subject '${subject}' was soft deleted.Set permanent=true to delete permanently`);
    }
    for (const e of live) e.deleted = true;
    return live.map((e) => e.version);
  }

  /**
   * Problems that would make `schema` fail registration: against one version when given (with the
   * subject's direction), else against the live versions as registration itself would check.
   */
  compatibilityProblems(subject: string, spec: VersionSpec | undefined, schema: string | object): string[] {
    const parsed = parse(schema);
    const level = this.effectiveCompatibility(subject);
    if (spec === undefined) {
      const live = (this.subjectEntries.get(subject) ?? []).filter((e) => !e.deleted);
      return compatibilityProblems(
        parsed.type,
        live.map((e) => this.stored(e.id).type),
        level,
      );
    }
    const against = this.version(subject, spec);
    return compatibilityProblems(parsed.type, [this.stored(against.id).type], level);
  }

  globalCompatibility(): CompatibilityLevel {
    return this.globalLevel;
  }

  setGlobalCompatibility(level: unknown): CompatibilityLevel {
    this.globalLevel = validLevel(level);
    return this.globalLevel;
  }

  /** Only the subject's own setting; undefined when it falls back to the global one. */
  subjectCompatibility(subject: string): CompatibilityLevel | undefined {
    return this.subjectLevels.get(subject);
  }

  setSubjectCompatibility(subject: string, level: unknown): CompatibilityLevel {
    const valid = validLevel(level);
    this.subjectLevels.set(subject, valid);
    return valid;
  }

  effectiveCompatibility(subject: string): CompatibilityLevel {
    return this.subjectLevels.get(subject) ?? this.globalLevel;
  }

  private idFor(parsed: Parsed): number {
    const known = this.idsByFingerprint.get(parsed.fingerprint);
    if (known !== undefined) return known;
    const id = this.nextId++;
    this.idsByFingerprint.set(parsed.fingerprint, id);
    this.fingerprintsById.set(id, parsed.fingerprint);
    this.schemasById.set(id, { id, schema: parsed.text, type: parsed.type });
    return id;
  }

  private stored(id: number): StoredSchema {
    const found = this.schemasById.get(id);
    if (!found) throw new SchemaStoreError('schema_not_found', `Schema ${id} not found`);
    return found;
  }

  private fingerprintOf(id: number): string | undefined {
    return this.fingerprintsById.get(id);
  }

  private entriesOf(subject: string, opts: { deleted?: boolean }): VersionEntry[] {
    const entries = (this.subjectEntries.get(subject) ?? []).filter((e) => opts.deleted || !e.deleted);
    if (entries.length === 0) throw subjectNotFound(subject);
    return entries;
  }

  private subjectVersion(subject: string, entry: VersionEntry): SubjectVersion {
    return { subject, version: entry.version, id: entry.id, schema: this.stored(entry.id).schema };
  }
}

export function createSchemaStore(opts: { compatibility?: CompatibilityLevel } = {}): SchemaStore {
  return new SchemaStore(opts);
}

function parse(schema: string | object): Parsed {
  try {
    const type = parseAvroSchema(schema);
    const text = typeof schema === 'string' ? JSON.stringify(JSON.parse(schema)) : JSON.stringify(schema);
    return { text, type, fingerprint: schemaFingerprint(text) };
  } catch (err) {
    if (err instanceof InvalidSchemaError) throw new SchemaStoreError('invalid_schema', `Invalid schema: ${err.message}`);
    throw err;
  }
}

function parseVersion(spec: VersionSpec): number | 'latest' {
  const text = String(spec);
  if (text === 'latest' || text === '-1') return 'latest';
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (Number.isInteger(n) && n >= 1 && n <= 2 ** 31 - 1) return n;
  throw new SchemaStoreError(
    'invalid_version',
    `The specified version '${text}' is not a valid version id. Allowed values are between [1, 2^31-1] and the string "latest"`,
  );
}

function validLevel(level: unknown): CompatibilityLevel {
  const valid = parseCompatibilityLevel(level);
  if (!valid) {
    throw new SchemaStoreError(
      'invalid_compatibility_level',
      `Invalid compatibility level. Valid values are ${COMPATIBILITY_LEVELS.map((l) => l.toLowerCase()).join(', ')}`,
    );
  }
  return valid;
}

function subjectNotFound(subject: string): SchemaStoreError {
  return new SchemaStoreError('subject_not_found', `Subject '${subject}' not found.`);
}
