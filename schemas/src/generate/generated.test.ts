import { parseAvroSchema } from '@evp/registry';
import { BLOCKS, CATALOG_KINDS } from '@evp/core';
import { eventDefs } from '../events/event-defs';
import { rejectedRecordSchema } from '../rejected';
import { opt, req, t } from '../dsl/types';
import { derivedTopicSchemas } from './avro-files';
import { REGENERATE_COMMAND, generateFiles, staleFiles } from './generate';
import { catalogSources } from './sources';
import { TYPES_PATH } from './ts-types';
import { EVENT_WRITERS_PATH } from './event-writers';
import { PROP_CHECKS_PATH } from './prop-checks';
import { EVENTS_REFERENCE_PATH } from './reference';
import { probeRules } from './rule-probe';

describe('generated files', () => {
  it('are committed and up to date', () => {
    // The message names every stale file and the one command that fixes it.
    const stale = staleFiles();
    const message = stale.map((s) => `${s.path} is ${s.reason === 'orphan' ? 'no longer generated' : s.reason === 'missing' ? 'missing' : 'stale'}`).join('\n');
    expect(stale.length === 0 ? '' : `${message}\nrun: ${REGENERATE_COMMAND}`).toBe('');
  });

  it('are deterministic and end with a newline', () => {
    const a = generateFiles();
    const b = generateFiles();
    expect([...a]).toEqual([...b]);
    for (const content of a.values()) expect(content.endsWith('\n') && !content.endsWith('\n\n')).toBe(true);
  });

  it('cover every block topic, the rejected record and every catalog topic, each a valid Avro schema', () => {
    const derived = derivedTopicSchemas();
    for (const block of BLOCKS) expect(derived.has(`events.${block}`)).toBe(true);
    expect(derived.get('ingest.rejected')).toEqual(rejectedRecordSchema);
    for (const c of catalogSources()) expect(derived.has(c.topic)).toBe(true);
    for (const [path, text] of generateFiles()) if (path.endsWith('.avsc')) expect(() => parseAvroSchema(text)).not.toThrow();
  });

  it('types, event writers, prop checks and reference name every event', () => {
    const files = generateFiles();
    for (const def of eventDefs) {
      expect(files.get(PROP_CHECKS_PATH)).toMatch(new RegExp(`^  \\[${JSON.stringify(def.event)}, check_${def.name}_\\d+\\],$`, 'm'));
      expect(files.get(EVENT_WRITERS_PATH)).toContain(`  [${JSON.stringify(def.event)}, { block: ${JSON.stringify(def.block)}, write: write_${def.event} }],`);
      expect(files.get(TYPES_PATH)).toContain(`export interface ${def.name} {`);
      expect(files.get(TYPES_PATH)).toContain(`  ${def.event}: ${def.name};`);
      expect(files.get(EVENTS_REFERENCE_PATH)).toContain(`### ${def.block} ${def.event}`);
    }
  });
});

describe('catalog pick-up', () => {
  const user = { kind: 'user', name: 'UserRecord', fields: { id: req(t.string), tier: opt(t.enum('tier', ['a', 'b'])) } };

  it('finds a catalog list by its export name and derives its Avro record', () => {
    const [src, ...rest] = catalogSources({ catalogDefs: [user] });
    expect(rest).toHaveLength(0);
    expect(src).toMatchObject({ kind: 'user', topic: 'catalog.user', deprecated: false });
    expect(() => parseAvroSchema(src!.avro as object)).not.toThrow();
  });

  it('prefers an exported Avro builder and rejects unknown kinds', () => {
    const built = { type: 'record', name: 'Built', fields: [] };
    expect(catalogSources({ catalogDefs: [user], catalogSchema: () => built })[0]!.avro).toBe(built);
    expect(() => catalogSources({ catalogDefs: [{ ...user, kind: 'nope' }] })).toThrow(/unknown kind/);
    expect(catalogSources({})).toEqual([]);
    expect(CATALOG_KINDS).toContain('user');
  });
});

describe('rule probing for the reference page', () => {
  it('describes conditional rules by their names', () => {
    const def = {
      name: 'X',
      fields: { response: req(t.enum('r', ['ok', 'error'])), details: opt(t.string) },
      rules: [
        (v: Record<string, unknown>) =>
          v.details !== undefined && v.response !== 'error' ? [{ path: 'details', rule: 'details_only_for_error' as const, message: 'only for error' }] : [],
        () => [],
      ],
    };
    const probed = probeRules(def);
    expect(probed.problems.map((p) => p.rule)).toEqual(['details_only_for_error']);
    expect(probed.silent).toBe(1);
  });
});
