import { ClickHouseFailure } from '@evp/core';

/**
 * What chdb cannot enforce by itself for an analyst query, decided from ClickHouse's own parse of it
 * (`EXPLAIN AST`, `EXPLAIN QUERY TREE`), never from our reading of the SQL text. readonly=1 and
 * additional_table_filters (set on the app's session, docs/analytics.md) do the rest.
 */

/**
 * Functions that reach outside the app's rows: readonly=1 still lets `SELECT file('/etc/…')` read a
 * file of this machine (chdb has no user_files_path sandbox), dictionaries and Join tables are
 * not app-scoped, and the table functions among them read other tables, hosts or files. Checked
 * in the AST, before any analysis, since analysing a query already folds constants such as file().
 */
const DENIED_FUNCTIONS = new Set(
  [
    'file',
    'url',
    'urlCluster',
    's3',
    's3Cluster',
    'gcs',
    'hdfs',
    'azureBlobStorage',
    'remote',
    'remoteSecure',
    'cluster',
    'clusterAllReplicas',
    'input',
    'merge',
    'mysql',
    'postgresql',
    'jdbc',
    'odbc',
    'sqlite',
    'mongodb',
    'redis',
    'executable',
    'dictionary',
    'joinGet',
    'joinGetOrNull',
    'getMacro',
    'catboostEvaluate',
    'filesystemAvailable',
    'filesystemCapacity',
    'filesystemUnreserved',
  ].map((f) => f.toLowerCase()),
);

/**
 * Table functions that read no table: harmless generators, and `values` (rows written in the query
 * itself; the JDBC driver's getTypeInfo and getClientInfoProperties select from it). Every other one is refused.
 */
const ALLOWED_TABLE_FUNCTIONS = new Set(['numbers', 'zeros', 'generate_series', 'generateseries', 'values']);

/**
 * System tables that hold no data of any app, the same for every key: `SELECT 1` reads system.one;
 * the rest are the server's catalogs that SQL tools read when they connect (the JDBC driver's
 * getFunctions and getTypeInfo, Metabase's `system.settings` probe, editors' completion).
 * system.databases, .tables and .columns are readable too, narrowed to the app's own view by its
 * session (packages/embedded's analyst adapter); query logs, processes and parts never are.
 */
const HARMLESS_TABLES = new Set(
  ['one', 'functions', 'data_type_families', 'table_engines', 'table_functions', 'formats', 'settings', 'time_zones', 'collations', 'build_options'].map(
    (t) => `system.${t}`,
  ),
);

const SELECT_ROOTS = new Set(['SelectWithUnionQuery', 'SelectIntersectExceptQuery']);

const readonlyRefusal = (what: string) => new ClickHouseFailure(164, 'READONLY', `${what}: this interface runs read-only SELECT queries only`);
const accessDenied = (what: string) => new ClickHouseFailure(497, 'ACCESS_DENIED', `Not enough privileges: ${what} is not readable with this key`);

/**
 * Checks `EXPLAIN AST` output: one SELECT, no INTO OUTFILE or SETTINGS, no function that reaches
 * outside. Returns the query's own FORMAT, if it has one.
 */
export function checkAst(ast: string): string | undefined {
  let format: string | undefined;
  const lines = ast.split('\n').filter((l) => l.trim() !== '');
  const root = (lines[0] ?? '').split(' ')[0] ?? '';
  if (!SELECT_ROOTS.has(root)) throw readonlyRefusal(`${root || 'an empty'} statement`);
  for (const line of lines.slice(1)) {
    const depth = line.length - line.trimStart().length;
    const [node, name] = line.trim().split(' ');
    // The root's own children: the selects, then an optional INTO OUTFILE literal, FORMAT identifier, SETTINGS.
    if (depth === 1 && node !== 'ExpressionList' && node !== 'Identifier') throw readonlyRefusal(node === 'Set' ? 'SETTINGS' : 'INTO OUTFILE');
    if (depth === 1 && node === 'Identifier') format = name;
    if (node === 'Set') throw readonlyRefusal('SETTINGS');
    if (node === 'Function' && name && (DENIED_FUNCTIONS.has(name.toLowerCase()) || name.toLowerCase().startsWith('dict')))
      throw accessDenied(`function ${name}()`);
  }
  return format;
}

/**
 * ClickHouse's canonical text of the query without its FORMAT clause (formatQuery prints FORMAT on
 * the last line): EXPLAIN must print in our format, never the query's (a `FORMAT Null` would hide
 * the tables it reads).
 */
export function withoutFormat(canonical: string, format: string | undefined): string {
  if (format === undefined) return canonical;
  const lines = canonical.trimEnd().split('\n');
  // Formats named like keywords (Null) come back quoted: FORMAT `Null`.
  if (lines.at(-1) !== `FORMAT ${format}` && lines.at(-1) !== `FORMAT \`${format}\``) throw readonlyRefusal('an unusual FORMAT clause');
  return lines.slice(0, -1).join('\n');
}

const LIKE = String.raw`(?: (?:NOT )?I?LIKE '(?:[^'\\\n]|\\.)*')?(?: LIMIT \d+)?`;
const SHOW = new RegExp(String.raw`^SHOW (?:DATABASES|TABLES(?: FROM \w+)?)${LIKE}$`);
const DESCRIBE = /^(?:DESCRIBE TABLE|SHOW CREATE TABLE) (?:(\w+)\.)?(\w+)$/;

/**
 * The statements schema browsers send besides SELECTs (Grafana's ClickHouse data source: `SHOW
 * DATABASES`, `SHOW TABLES FROM db`, `DESC TABLE db.t`; DBeaver's DDL tab: `SHOW CREATE TABLE`),
 * recognised in ClickHouse's canonical text of the query (formatQuery), each whole: `SHOW DATABASES`
 * and `SHOW TABLES [FROM db]`, with an optional `[NOT] [I]LIKE '…'` and `LIMIT n`, read
 * system.databases and system.tables, which the session filters; `DESCRIBE TABLE t` and `SHOW
 * CREATE TABLE t` (what system.tables' create_table_query shows anyway) are allowed on a table the
 * key may read (else 497). Any other SHOW (dictionaries, clusters, processes, …) stays refused by checkAst. Returns the
 * statement to run and its own FORMAT, or undefined when `canonical` is not one of these.
 */
export function browseStatement(
  canonical: string,
  database: string,
  filteredTables: ReadonlySet<string>,
): { statement: string; format: string | undefined } | undefined {
  const [statement = '', formatLine, ...rest] = canonical.trimEnd().split('\n');
  const format = formatLine === undefined ? undefined : /^FORMAT (\w+)$/.exec(formatLine)?.[1];
  if (rest.length > 0 || (formatLine !== undefined && format === undefined)) return undefined;
  if (SHOW.test(statement)) return { statement, format };
  const d = DESCRIBE.exec(statement);
  if (!d) return undefined;
  const table = `${d[1] ?? database}.${d[2] as string}`;
  if (!filteredTables.has(table) && !HARMLESS_TABLES.has(table)) throw accessDenied(`table ${table}`);
  return { statement, format };
}

/** Checks `EXPLAIN QUERY TREE` output: every table read is filtered to the app (or harmless), every table function a generator. */
export function checkQueryTree(tree: string, filteredTables: ReadonlySet<string>): void {
  for (const m of tree.matchAll(/\btable_name: ([^\s,]+)/g)) {
    const table = m[1] as string;
    if (!filteredTables.has(table) && !HARMLESS_TABLES.has(table)) throw accessDenied(`table ${table}`);
  }
  for (const m of tree.matchAll(/\btable_function_name: ([^\s,]+)/g)) {
    const fn = m[1] as string;
    // Compared in lower case: the query tree keeps the name as written (`VALUES`), and ClickHouse resolves some names in any case.
    if (!ALLOWED_TABLE_FUNCTIONS.has(fn.toLowerCase())) throw accessDenied(`table function ${fn}()`);
  }
}
