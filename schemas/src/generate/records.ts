import { CANONICAL_FIELDS } from '../canonical-fields';
import { avroFieldName, type RecordField } from '../record-fields';
import { REJECTED_FIELDS } from '../rejected';
import { DEAD_LETTER_FIELDS } from '../dead-letter-fields';
import { MEMBERSHIP_FIELDS } from '../membership';
import { ACTION_LOG_FIELDS } from '../action-log';
import { RECEIPT_FIELDS } from '../receipt';
import { SUPPRESSION_FIELDS } from '../suppression';
import { ACTION_REQUEST_FIELDS, NEW_ACTION_FIELDS } from '../action-request';

export const RECORDS_PATH = 'schemas/generated/records.ts';

function tsTypeOf(f: RecordField): string {
  switch (f.kind) {
    case 'string':
      return 'string';
    case 'epochMs':
    case 'int':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'block':
      return 'Block';
    case 'enum':
      return (f.symbols ?? []).map((s) => JSON.stringify(s)).join(' | ');
    case 'props':
    case 'jsonObject':
      return 'Record<string, unknown>';
    case 'jsonText':
      // Any JSON value, null included.
      return 'unknown';
    case 'reasons':
      return 'RejectionReason[]';
    case 'stringList':
      return 'string[]';
    case 'stringMap':
      return 'Record<string, string>';
    case 'recordList':
      return f.avroRecord === undefined ? 'Record<string, unknown>[]' : `${f.avroRecord}[]`;
    case 'record':
      return f.avroRecord ?? 'Record<string, unknown>';
  }
}

const jsdoc = (doc: string | undefined, indent: string): string[] => (doc ? [`${indent}/** ${doc.replace(/\*\//g, '*\\/')} */`] : []);

/**
 * The interface of a field table, after those of its nested records (named after their Avro
 * records); `rendered` holds the names already written, so a record two tables share (an action's
 * content) is declared once.
 */
function renderInterface(name: string, doc: string, fields: readonly RecordField[], rendered = new Set<string>()): string[] {
  rendered.add(name);
  const nested = fields.flatMap((f) =>
    (f.kind === 'recordList' || f.kind === 'record') && f.avroRecord !== undefined && f.fields !== undefined && !rendered.has(f.avroRecord)
      ? [...renderInterface(f.avroRecord, f.doc ?? '', f.fields, rendered), '']
      : [],
  );
  const out = [...nested, ...jsdoc(doc, ''), `export interface ${name} {`];
  for (const f of fields) {
    const type = tsTypeOf(f);
    out.push(...jsdoc(f.doc, '  '), `  ${f.name}${f.optional ? '?' : ''}: ${f.nullable && type !== 'unknown' ? `${type} | null` : type};`);
  }
  out.push('}');
  return out;
}

/** A JSON field's own value as the Avro record's parameter (`meta` → `meta_json`). */
const isJson = (f: RecordField) => f.kind === 'jsonText' || f.kind === 'jsonObject';

/**
 * The canonical event ↔ the head of its block's Avro record, written out as object literals: one
 * hidden class each in V8, where building the same object key by key (or with object rest) runs
 * on slow generic paths, and the validator and the events.core readers run through here per event.
 */
function renderCodecLiterals(fields: readonly RecordField[]): string[] {
  const jsonParams = fields.filter(isJson).map((f) => `${avroFieldName(f)}: string | null`);
  const toAvro = fields.filter((f) => f.kind !== 'props').map((f) => (isJson(f) ? `    ${avroFieldName(f)},` : `    ${f.name}: e.${f.name},`));
  const special = fields.filter((f) => f.kind === 'props' || isJson(f));
  const fromParams = special.map((f) => `${f.name}: CanonicalEvent['${f.name}']`);
  const fromAvro = fields.map((f) => (f.kind === 'props' || isJson(f) ? `    ${f.name},` : `    ${f.name}: r.${f.name},`));
  return [
    '/**',
    ' * The head of a canonical event’s block record (every field but the event’s own props field), one',
    ' * literal in CANONICAL_FIELDS order; JSON fields are passed in as text.',
    ' */',
    `export function canonicalAvroHead(e: CanonicalEvent, ${jsonParams.join(', ')}): Record<string, unknown> {`,
    '  return {',
    ...toAvro,
    '  };',
    '}',
    '',
    '/**',
    ' * A decoded block record with the current layout → its canonical event, one literal in',
    ' * CANONICAL_FIELDS order; props and the JSON fields are passed in decoded.',
    ' */',
    `export function canonicalFromAvroHead(r: CanonicalEvent, ${fromParams.join(', ')}): CanonicalEvent {`,
    '  return {',
    ...fromAvro,
    '  };',
    '}',
  ];
}

/** An action as the store takes it and the `actions.requested` message (their content record declared once). */
function actionInterfaces(): string[] {
  const rendered = new Set<string>();
  return [
    ...renderInterface('NewActionFields', 'An action as POST /v1/actions takes it (spec 2.5, 4.1).', NEW_ACTION_FIELDS, rendered),
    '',
    ...renderInterface(
      'ActionRequestMessage',
      'The value of an `actions.requested` message (JSON, key `<app_id>`): actions with both ids, so a redelivered message creates nothing twice.',
      ACTION_REQUEST_FIELDS,
      rendered,
    ),
    '',
  ];
}

/**
 * schemas/generated/records.ts: the TypeScript types of the records whose fields are tables
 * (CANONICAL_FIELDS, REJECTED_FIELDS) and the canonical event's Avro literals.
 */
export function recordsFile(): string {
  const lines = [
    '// GENERATED by `npm run generate -w @evp/schemas` from CANONICAL_FIELDS (schemas/src/canonical-fields.ts)',
    '// REJECTED_FIELDS (schemas/src/rejected.ts), MEMBERSHIP_FIELDS (schemas/src/membership.ts),',
    '// ACTION_LOG_FIELDS (schemas/src/action-log.ts), RECEIPT_FIELDS (schemas/src/receipt.ts) and',
    '// DEAD_LETTER_FIELDS (schemas/src/dead-letter-fields.ts), NEW_ACTION_FIELDS and ACTION_REQUEST_FIELDS',
    '// (schemas/src/action-request.ts), SUPPRESSION_FIELDS (schemas/src/suppression.ts).',
    '// Do not edit; a test fails when this file is stale.',
    '/* eslint-disable */',
    "import type { Block, RejectionReason } from '@evp/core';",
    '',
    ...renderInterface('CanonicalEvent', 'What every envelope form becomes (see docs/data-contract.md). Times are UTC epoch ms.', CANONICAL_FIELDS),
    '',
    ...renderInterface(
      'RejectedRecord',
      'A typed rejected record, in the manner of Snowplow’s bad rows: what failed, every reason with its JSON path, the original payload (a prefix when huge) and where it came from.',
      REJECTED_FIELDS,
    ),
    '',
    ...renderInterface(
      'MembershipChange',
      'One change of segment membership, as published on `segments.membership` (Avro) with key `app_id:user_id`.',
      MEMBERSHIP_FIELDS,
    ),
    '',
    ...renderInterface('IngestReceipt', 'One raw message’s verdicts (or a part of them, when they are many).', RECEIPT_FIELDS),
    '',
    ...renderInterface(
      'ActionLogEntry',
      'One step of an action of the action store, as published on `actions.log` (Avro) with key `app_id:user_id` (docs/actions.md, "The action log").',
      ACTION_LOG_FIELDS,
    ),
    '',
    ...renderInterface(
      'StoredDeadLetter',
      'A dead letter as the sink stores it (ClickHouse `dead_letters`): the envelope of `deadletters` flattened, with its app.',
      DEAD_LETTER_FIELDS,
    ),
    '',
    ...actionInterfaces(),
    ...renderInterface(
      'SuppressionEntry',
      'The value of a `privacy.suppressions` message (JSON, key `<app_id>:<id_hash>`; a tombstone lifts the suppression).',
      SUPPRESSION_FIELDS,
    ),
    '',
    ...renderCodecLiterals(CANONICAL_FIELDS),
  ];
  return `${lines.join('\n')}\n`;
}
