import { ClickHouseFailure, type AnalystQuery, type AnalystResult, type AnalystSql } from '@evp/core';
import { identifier } from '@evp/clickhouse';
import { Session } from 'chdb';
import { browseStatement, checkAst, checkQueryTree, withoutFormat } from './guard';

/** Per-query limits, set on each app's session before readonly=1 locks them (docs/analytics.md). */
export interface AnalystLimits {
  /** @default 10 (seconds) */
  maxExecutionSeconds: number;
  /** @default 1 GiB */
  maxMemoryBytes: number;
  /** @default 100 000 */
  maxResultRows: number;
  /** @default 100 MiB */
  maxResultBytes: number;
}

export const defaultAnalystLimits: AnalystLimits = {
  maxExecutionSeconds: 10,
  maxMemoryBytes: 1024 ** 3,
  maxResultRows: 100_000,
  maxResultBytes: 100 * 1024 ** 2,
};

export interface ChdbAnalystSqlOptions {
  /** The data directory the process's chdb is bound to (the pipeline's own). */
  path: string;
  /** The platform's database. */
  database: string;
  limits?: Partial<AnalystLimits>;
}

interface AppSessions {
  /** Parses and analyses queries: readonly and filtered, without result limits (EXPLAIN output is a result). */
  check: Session;
  /** Runs them: readonly, filtered, limited. */
  run: Session;
}

type ChdbResult = Awaited<ReturnType<Session['queryAsync']>>;

const answer = (r: ChdbResult, format: string): AnalystResult => ({
  body: Buffer.from(r.bytes()),
  format,
  readRows: r.rowsRead,
  readBytes: r.bytesRead,
  elapsedNs: Math.round(r.elapsed * 1e9),
});

/**
 * The system tables that describe the schema, each narrowed to what the app may read (the
 * platform's database and its app-scoped tables), as a ClickHouse server narrows them to a user's
 * grants. Tables as `database.table`; `database` an identifier.
 */
function schemaViewFilters(database: string, scoped: readonly string[]): Record<string, string> {
  const names = scoped.map((t) => `'${t.slice(database.length + 1)}'`).join(', ');
  return {
    'system.databases': `name = '${database}'`,
    'system.tables': `database = '${database}' AND name IN (${names})`,
    'system.columns': `database = '${database}' AND table IN (${names})`,
  };
}

/**
 * The embedded analyst SQL adapter. Each app gets its own chdb sessions (separate ClickHouse
 * sessions on the process's one data directory) whose settings are fixed before `readonly = 1`:
 * `additional_table_filters` adds `app_id = '<app>'` to every read of every app-scoped table, and
 * readonly=1 makes ClickHouse refuse any later SET or SETTINGS clause that would lift it. The
 * pipeline's own session is never touched. What readonly does not cover in chdb (system tables,
 * file(), INTO OUTFILE, multi-statements, other tables) is refused by the guard, from ClickHouse's
 * parse of the query. system.databases, .tables and .columns are filtered the same way, to the
 * app's own view (what SQL tools read to browse the schema).
 */
export function createChdbAnalystSql(opts: ChdbAnalystSqlOptions): AnalystSql {
  const database = identifier(opts.database, 'database name');
  const limits = { ...defaultAnalystLimits, ...opts.limits };
  const sessions = new Map<string, Promise<AppSessions>>();
  let scoped: Promise<Set<string>> | undefined;
  /** What a query may read: the app-scoped tables and the schema views, each filtered by the session. */
  let filtered: Promise<Set<string>> | undefined;
  const filteredTables = () => (filtered ??= scopedTables().then((tables) => new Set([...tables, ...Object.keys(schemaViewFilters(database, [...tables]))])));

  // Every table of the platform's database with an app_id column, read once (migrations ran before).
  const scopedTables = () =>
    (scoped ??= (async () => {
      const s = new Session(opts.path);
      try {
        const r = await s.queryBindAsync(
          'SELECT table FROM system.columns WHERE database = {db:String} AND name = {c:String}',
          { db: database, c: 'app_id' },
          { format: 'JSONEachRow' },
        );
        const names = r
          .text()
          .split('\n')
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as { table: string }).table);
        return new Set(names.map((n) => `${database}.${n}`));
      } finally {
        s.close();
      }
    })());

  const open = async (appId: string, withLimits: boolean): Promise<Session> => {
    if (!/^[A-Za-z0-9._-]+$/.test(appId)) throw new ClickHouseFailure(497, 'ACCESS_DENIED', 'Not enough privileges: invalid app id');
    const tables = [...(await scopedTables())];
    const filter = `app_id = ''${appId}''`;
    const quote = (sql: string) => sql.replace(/'/g, "''");
    const filters = [
      ...tables.flatMap((t) => [`'${t}': '${filter}'`, `'${t.slice(database.length + 1)}': '${filter}'`]),
      ...Object.entries(schemaViewFilters(database, tables)).map(([t, f]) => `'${t}': '${quote(f)}'`),
    ].join(', ');
    const s = new Session(opts.path);
    const settings = [
      `additional_table_filters = {${filters}}`,
      `max_execution_time = ${limits.maxExecutionSeconds}`,
      `max_memory_usage = ${limits.maxMemoryBytes}`,
    ];
    if (withLimits) settings.push(`max_result_rows = ${limits.maxResultRows}`, `max_result_bytes = ${limits.maxResultBytes}`, `result_overflow_mode = 'throw'`);
    for (const sql of [`USE ${database}`, `SET ${settings.join(', ')}`, 'SET readonly = 1']) await s.queryAsync(sql);
    return s;
  };

  const forApp = (appId: string) => {
    let p = sessions.get(appId);
    if (!p) {
      p = (async () => ({ check: await open(appId, false), run: await open(appId, true) }))();
      p.catch(() => sessions.delete(appId));
      sessions.set(appId, p);
    }
    return p;
  };

  return {
    async query(q: AnalystQuery): Promise<AnalystResult> {
      if (q.sql.trim() === '') throw new ClickHouseFailure(62, 'SYNTAX_ERROR', 'Empty query');
      const { check, run } = await forApp(q.appId);
      const params = q.params;
      const hasParams = Object.keys(params).length > 0;
      try {
        // One statement only: formatQuery parses without running and refuses "a; b". Its canonical
        // text is what is explained and run, so the checks and the run see the same query.
        const formatted = await check.queryBindAsync('SELECT formatQuery({q:String}) AS q', { q: q.sql }, { format: 'JSONEachRow' });
        const canonical = (JSON.parse(formatted.text()) as { q: string }).q;
        const browse = browseStatement(canonical, database, await filteredTables());
        if (browse) {
          const format = browse.format ?? q.format;
          return answer(await run.queryAsync(browse.statement, { format }), format);
        }
        const astSql = `EXPLAIN AST ${canonical}`;
        const ast = hasParams ? await check.queryBindAsync(astSql, params, { format: 'TSVRaw' }) : await check.queryAsync(astSql, { format: 'TSVRaw' });
        const ownFormat = checkAst(ast.text());
        const sql = withoutFormat(canonical, ownFormat);
        const format = ownFormat ?? q.format;
        const treeSql = `EXPLAIN QUERY TREE ${sql}`;
        const tree = hasParams ? await check.queryBindAsync(treeSql, params, { format: 'TSVRaw' }) : await check.queryAsync(treeSql, { format: 'TSVRaw' });
        checkQueryTree(tree.text(), await filteredTables());
        return answer(hasParams ? await run.queryBindAsync(sql, params, { format }) : await run.queryAsync(sql, { format }), format);
      } catch (err) {
        throw ClickHouseFailure.from(err);
      }
    },
    async close() {
      const all = await Promise.allSettled(sessions.values());
      sessions.clear();
      for (const r of all) {
        if (r.status !== 'fulfilled') continue;
        r.value.check.close();
        r.value.run.close();
      }
    },
  };
}
