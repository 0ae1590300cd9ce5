import { personIdFields, type PersonIdField } from '@evp/schemas';
import { raiseFloorsOf } from '../segments';

/** The kinds of person an erasure or an export names (the routes' `user_ids` and `patient_ids`). */
const ID_KINDS = ['user', 'patient'] as const;
export type IdKind = (typeof ID_KINDS)[number];

/** The table of ids in flight (migration 019): every statement reads the ids from it, never from a literal. */
export const WORK_TABLE = 'privacy_work';

/**
 * One ClickHouse table that can hold a person's rows, with the condition that finds them. `where`
 * reads the ids from WORK_TABLE rows selected by `scope` (a condition on that table's columns, e.g.
 * the requests of a batch), so one statement serves every request of the batch.
 */
export interface ClickHouseTarget {
  table: string;
  /** What the condition looks at, for the docs and the test (e.g. `user_id`, `props.patient_list[].patient_id`). */
  carriers: string[];
  where: (scope: string) => string;
  /**
   * The same conditions as `where`, per row, for counting by request (evidence.ts): `keys` the ids
   * the row carries as an Array(String) of `kind:id` (compared whole, with the row's app), `texts`
   * the payloads it keeps as text, matched when they contain an id (quoted: as a JSON string).
   */
  keys: string;
  texts?: { text: string; quoted: boolean }[];
  /** A statement run before the rows are deleted (same scope and parameters), e.g. to keep a watermark the rows held. */
  beforeDelete?: (scope: string) => string;
}

/** `kind:id` for a plain id column (a row without one carries no key). */
const key = (kind: IdKind, column: string) => `concat('${kind}:', ifNull(${column}, ''))`;
/** `kind:id` for every value of an Array(String) expression. */
const keysOf = (kind: IdKind, values: string) => `arrayMap(v -> concat('${kind}:', v), ${values})`;

/** `(app_id, <column>) IN (ids of kind)`: a plain id column of the table. */
const inIds = (column: string, kind: IdKind, scope: string) =>
  `(app_id, ${column}) IN (SELECT app_id, id FROM ${WORK_TABLE} WHERE kind = '${kind}' AND (${scope}))`;

/** The ids of a kind as `app_id:id` strings, one array for the whole batch (a scalar subquery). */
const appIds = (kind: IdKind, scope: string) => `(SELECT groupArray(concat(app_id, ':', id)) FROM ${WORK_TABLE} WHERE kind = '${kind}' AND (${scope}))`;

/**
 * The values at `path` inside a JSON column, as an Array(String): a key step extracts the member,
 * `[]` spreads an array, `{}` a map's values. A value that is a JSON string is compared unquoted; a
 * number as its digits, so an id sent as 42 is found by '42' (a type mismatch would otherwise make a
 * delete silently match nothing).
 *
 * The keys before the first `[]` or `{}` are read as the column's subcolumn (`props.patient_id`, or
 * the sub-object `props.^m` before a `{}`), and only that value is turned into JSON text for the
 * steps after it: the whole column as text (`toJSONString(props)`) cost ≈ 50 µs a row and was
 * computed for every row of the table, even those whose event name carries no id (bench:privacy,
 * 150 s per count on 10M events). A row without the path gives no value (not '' nor 'null').
 */
function jsonPathValues(column: string, path: readonly string[]): string {
  const spread = path.findIndex((step) => step === '[]' || step === '{}');
  const keys = spread === -1 ? path : path.slice(0, spread);
  const rest = spread === -1 ? [] : path.slice(spread);
  let raws: string;
  if (keys.length === 0) raws = `[toJSONString(${column})]`;
  else {
    // An object's members are subcolumns of their own, so a map is read as the sub-object `^`.
    const sub = `${column}.${rest[0] === '{}' ? '^' : ''}${keys.map(subcolumnName).join('.')}`;
    raws = `arrayFilter(x -> x != '', [ifNull(toJSONString(${sub}), '')])`;
  }
  for (const step of rest) {
    if (step === '[]') raws = `arrayFlatten(arrayMap(x -> JSONExtractArrayRaw(x), ${raws}))`;
    else if (step === '{}') raws = `arrayFlatten(arrayMap(x -> arrayMap(kv -> kv.2, JSONExtractKeysAndValuesRaw(x)), ${raws}))`;
    else raws = `arrayMap(x -> JSONExtractRaw(x, ${sqlString(step)}), ${raws})`;
  }
  return `arrayMap(x -> if(JSONType(x) = 'String', JSONExtractString(x), x), ${raws})`;
}

/** A key of a JSON path as a subcolumn name, quoted (the contract's names; a backquote cannot be quoted here). */
function subcolumnName(key: string): string {
  if (key.includes('`') || key.includes('.')) throw new Error(`not a JSON key for a subcolumn: ${key}`);
  return `\`${key}\``;
}

const sqlString = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

const hasIds = (values: string, kind: IdKind, scope: string) => `hasAny(arrayMap(v -> concat(app_id, ':', v), ${values}), ${appIds(kind, scope)})`;

const isIdKind = (k: string): k is IdKind => (ID_KINDS as readonly string[]).includes(k);

/** Events: the envelope's user_id, and every tagged property path of the events that have it. */
function eventsTarget(fields: PersonIdField[]): ClickHouseTarget {
  // One condition per (kind, path), naming every event that has the path (names are the contract's, not a person's).
  const byPath = new Map<string, { kind: IdKind; path: readonly string[]; names: Set<string> }>();
  for (const f of fields) {
    if (f.source !== 'event' || !isIdKind(f.person)) continue;
    const key = `${f.person} ${f.path.join('.')}`;
    const entry = byPath.get(key) ?? { kind: f.person, path: f.path, names: new Set<string>() };
    entry.names.add(f.name);
    byPath.set(key, entry);
  }
  const paths = [...byPath.values()];
  const names = (p: (typeof paths)[number]) => `name IN (${[...p.names].map(sqlString).join(', ')})`;
  return {
    table: 'events',
    carriers: ['user_id', ...paths.map((p) => `props.${p.path.join('.')} (${p.kind})`)],
    keys: `arrayConcat([${key('user', 'user_id')}]${paths.map((p) => `, if(${names(p)}, ${keysOf(p.kind, jsonPathValues('props', p.path))}, [])`).join('')})`,
    where: (scope) =>
      [inIds('user_id', 'user', scope), ...paths.map((p) => `(${names(p)} AND ${hasIds(jsonPathValues('props', p.path), p.kind, scope)})`)].join(' OR '),
  };
}

/** A catalog table: the record's own id when the record is a person, and every tagged path inside it. */
function catalogTargets(fields: PersonIdField[]): ClickHouseTarget[] {
  const byKind = new Map<string, PersonIdField[]>();
  for (const f of fields) if (f.source === 'catalog' && isIdKind(f.person)) byKind.set(f.name, [...(byKind.get(f.name) ?? []), f]);
  const isId = (f: PersonIdField) => f.path.length === 1 && f.path[0] === 'id';
  return [...byKind].map(([kind, fs]) => ({
    table: `catalog_${kind}`,
    carriers: fs.map((f) => `${isId(f) ? 'id' : `record.${f.path.join('.')}`} (${f.person})`),
    keys: `arrayConcat(${fs.map((f) => (isId(f) ? `[${key(f.person as IdKind, 'id')}]` : keysOf(f.person as IdKind, jsonPathValues('record', f.path)))).join(', ')})`,
    where: (scope) =>
      fs.map((f) => (isId(f) ? inIds('id', f.person as IdKind, scope) : hasIds(jsonPathValues('record', f.path), f.person as IdKind, scope))).join(' OR '),
  }));
}

/**
 * A payload kept as text (a rejected upload, a dead letter): it names the person when it holds one of
 * the ids as a JSON string. A dead letter of an Avro topic keeps its bytes base64-encoded: decoded,
 * the id appears unquoted, so there it is a substring match (it can also take another id containing
 * this one: an erasure deletes such a dead letter too; an export shows it).
 */
function payloadMatch(payload: string, quoted: boolean, scope: string): string {
  const needle = quoted ? `concat('"', id, '"')` : 'id';
  return `arrayExists(p -> p.1 = app_id AND position(${payload}, p.2) > 0, (SELECT groupArray((app_id, ${needle})) FROM ${WORK_TABLE} WHERE (${scope})))`;
}

/**
 * Receipts (one per envelope or catalog upload): an event's item names the envelope's user; a catalog
 * item names its record's id, which is a person's when the catalog's `id` is tagged as one. A receipt
 * naming the person goes whole, with the verdicts of others' records uploaded beside it: it is a
 * verdict kept for the uploader, not anyone's data.
 */
function receiptsTarget(fields: PersonIdField[]): ClickHouseTarget {
  const records = fields.filter((f) => f.source === 'catalog' && isIdKind(f.person) && f.path.length === 1 && f.path[0] === 'id');
  return {
    table: 'ingest_receipts',
    carriers: ['items[].user_id (user)', ...records.map((f) => `items[].id of catalog:${f.name} (${f.person})`)],
    keys: `arrayConcat(${keysOf('user', `arrayMap(i -> ifNull(i.user_id, ''), items)`)}${records
      .map((f) => `, if(payload_kind = ${sqlString(`catalog:${f.name}`)}, ${keysOf(f.person as IdKind, 'arrayMap(i -> i.id, items)')}, [])`)
      .join('')})`,
    where: (scope) =>
      [
        hasIds(`arrayMap(i -> ifNull(i.user_id, ''), items)`, 'user', scope),
        ...records.map((f) => `(payload_kind = ${sqlString(`catalog:${f.name}`)} AND ${hasIds('arrayMap(i -> i.id, items)', f.person as IdKind, scope)})`),
      ].join(' OR '),
  };
}

/**
 * Every ClickHouse table that can hold a person's rows. Events and catalogs are derived from the
 * field tables' privacy tags (personIdFields); the platform's own tables name the app's user in a
 * `user_id` column (segment members, campaign outcomes, the action log, rejections, receipts' items)
 * or keep a payload as text.
 */
export function clickhouseTargets(fields: PersonIdField[] = personIdFields()): ClickHouseTarget[] {
  const userTable = (table: string): ClickHouseTarget => ({
    table,
    carriers: ['user_id'],
    keys: `[${key('user', 'user_id')}]`,
    where: (scope) => inIds('user_id', 'user', scope),
  });
  return [
    eventsTarget(fields),
    ...catalogTargets(fields),
    {
      table: 'rejected',
      // The envelope's user (a column since migration 004) and the rejected event or record itself.
      carriers: ['user_id', 'payload (JSON text)'],
      keys: `[${key('user', 'user_id')}]`,
      texts: [{ text: 'payload', quoted: true }],
      where: (scope) => `${inIds('user_id', 'user', scope)} OR ${payloadMatch('payload', true, scope)}`,
    },
    receiptsTarget(fields),
    {
      table: 'dead_letters',
      carriers: ['source_key', 'payload'],
      keys: `[${key('user', 'substring(source_key, length(app_id) + 2)')}]`,
      texts: [
        { text: "if(payload_encoding = 'utf8', payload, '')", quoted: true },
        // tryBase64Decode: the `if` is not short-circuited here, and a utf8 payload is no base64.
        { text: "if(payload_encoding = 'base64', tryBase64Decode(payload), '')", quoted: false },
      ],
      where: (scope) =>
        `${inIds('substring(source_key, length(app_id) + 2)', 'user', scope)} OR (payload_encoding = 'utf8' AND ${payloadMatch('payload', true, scope)}) OR (payload_encoding = 'base64' AND ${payloadMatch('base64Decode(payload)', false, scope)})`,
    },
    {
      ...userTable('segment_members'),
      // The erased keys' seqs go into their segments' floors first, as the expiry of ended memberships
      // does (expire-ended.ts): a person whose suppression is lifted and who enters again gets a seq
      // above every seq the membership topic carried for them, so its consumers keep the change.
      beforeDelete: (scope) => raiseFloorsOf(inIds('user_id', 'user', scope)),
    },
    userTable('campaign_outcomes'),
    userTable('actions_log'),
  ];
}
