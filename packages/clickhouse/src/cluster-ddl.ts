import { MigrationError } from './migration-error';

/**
 * The clustered form of the migrations (docs/scaling.md "ClickHouse"): the files stay written for
 * one node, and with a cluster name each statement is rendered for every shard and replica:
 * - `CREATE TABLE IF NOT EXISTS t (…) ENGINE = ReplacingMergeTree[(v)] …` becomes a replicated
 *   local table `t_local` (ReplicatedReplacingMergeTree, its replication path in the keeper per
 *   shard) and a Distributed table `t` over it, both `ON CLUSTER`; readers and the sink keep using `t`.
 * - The Distributed table's sharding key keeps every version of a row on one shard (the dedup of
 *   ReplacingMergeTree and FINAL only see one shard): a hash of `app_id, user_id` where the sorting
 *   key has `user_id` (a user's events, memberships and actions together), otherwise of the sorting
 *   key's plain columns.
 * - `non_replicated_deduplication_window` becomes `replicated_deduplication_window` (the sink's
 *   insert_deduplication_token is kept per shard in the keeper).
 * - `ALTER TABLE t …` runs on `t_local`, and column changes on `t` too (a Distributed table has the
 *   columns of what it reads).
 * - A rebuild (020_retention_parts.sql): `CREATE TABLE IF NOT EXISTS t AS s ENGINE = …` is a local
 *   table `AS s_local` and a Distributed `t` over it; its replication path ends in `{uuid}`, so a copy
 *   made again never meets the path the table it was swapped with still uses. `INSERT INTO t SELECT
 *   * FROM s` copies shard by shard, each shard's rows staying on it (parallel_distributed_insert_select
 *   = 2: both tables are Distributed over one cluster with one sharding key). `EXCHANGE TABLES a AND b`
 *   swaps the local tables (the Distributed ones read them by name), and `DROP TABLE IF EXISTS t`
 *   drops both, SYNC, so the keeper's copy goes with it.
 * Any other statement is refused: a migration the renderer does not know must be looked at by hand.
 */

/** `{shard}`, `{replica}` and `{database}` are macros every server of the cluster defines (config.xml). */
const zkPath = (table: string) => `'/clickhouse/tables/{shard}/{database}/${table}', '{replica}'`;

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function clusterStatements(statement: string, cluster: string): string[] {
  if (!IDENT.test(cluster)) throw new MigrationError(`cluster name ${JSON.stringify(cluster)} is not an identifier`);
  const create = /^CREATE TABLE IF NOT EXISTS (\w+)\s*\n?\(/.exec(statement);
  if (create) return createClustered(statement, create[1] as string, cluster);
  const copy = /^CREATE TABLE IF NOT EXISTS (\w+) AS (\w+)\n/.exec(statement);
  if (copy) return copyClustered(statement, copy[1] as string, copy[2] as string, cluster);
  const insert = /^INSERT INTO (\w+) SELECT \* FROM (\w+)$/.exec(statement);
  if (insert) return [`${statement} SETTINGS parallel_distributed_insert_select = 2`];
  const exchange = /^EXCHANGE TABLES (\w+) AND (\w+)$/.exec(statement);
  if (exchange) return [`EXCHANGE TABLES ${exchange[1]}_local AND ${exchange[2]}_local ON CLUSTER ${cluster}`];
  const drop = /^DROP TABLE IF EXISTS (\w+)$/.exec(statement);
  if (drop) return [`DROP TABLE IF EXISTS ${drop[1]} ON CLUSTER ${cluster} SYNC`, `DROP TABLE IF EXISTS ${drop[1]}_local ON CLUSTER ${cluster} SYNC`];
  const alter = /^ALTER TABLE (\w+) ([\s\S]+)$/.exec(statement);
  if (alter) {
    const [, table, rest] = alter as unknown as [string, string, string];
    const local = `ALTER TABLE ${table}_local ON CLUSTER ${cluster} ${rest}`;
    return /^(ADD|MODIFY|DROP|RENAME|COMMENT) COLUMN\b/.test(rest) ? [local, `ALTER TABLE ${table} ON CLUSTER ${cluster} ${rest}`] : [local];
  }
  throw new MigrationError(`no clustered form for: ${statement.split('\n')[0]}`);
}

function createClustered(statement: string, table: string, cluster: string): string[] {
  const local = replicated(statement, table, zkPath(`${table}_local`)).replace(
    `CREATE TABLE IF NOT EXISTS ${table}`,
    `CREATE TABLE IF NOT EXISTS ${table}_local ON CLUSTER ${cluster}`,
  );
  return [local, distributedOver(statement, table, cluster)];
}

function copyClustered(statement: string, table: string, source: string, cluster: string): string[] {
  const local = replicated(statement, table, zkPath(`${table}_local/{uuid}`)).replace(
    `CREATE TABLE IF NOT EXISTS ${table} AS ${source}\n`,
    `CREATE TABLE IF NOT EXISTS ${table}_local ON CLUSTER ${cluster} AS ${source}_local\n`,
  );
  return [local, distributedOver(statement, table, cluster)];
}

/** The statement with its ReplacingMergeTree made replicated at `path`. */
function replicated(statement: string, table: string, path: string): string {
  const engine = /\nENGINE = ReplacingMergeTree(?:\((\w+)\))?\n/.exec(statement);
  if (!engine) throw new MigrationError(`table ${table}: only ReplacingMergeTree tables have a clustered form`);
  const version = engine[1] ? `, ${engine[1]}` : '';
  return statement
    .replace(engine[0], `\nENGINE = ReplicatedReplacingMergeTree(${path}${version})\n`)
    .replace('non_replicated_deduplication_window', 'replicated_deduplication_window');
}

const distributedOver = (statement: string, table: string, cluster: string) =>
  `CREATE TABLE IF NOT EXISTS ${table} ON CLUSTER ${cluster} AS ${table}_local\nENGINE = Distributed(${cluster}, currentDatabase(), ${table}_local, ${shardingKey(statement, table)})`;

/** A hash of the sorting key's identity: (app_id, user_id) when it has user_id, else its plain columns. */
function shardingKey(statement: string, table: string): string {
  const line = /\nORDER BY ([^\n]+)/.exec(statement)?.[1]?.trim();
  if (!line) throw new MigrationError(`table ${table}: no ORDER BY`);
  const plain = topLevelItems(line.startsWith('(') && line.endsWith(')') ? line.slice(1, -1) : line).filter((c) => IDENT.test(c));
  const key = plain.includes('app_id') && plain.includes('user_id') ? ['app_id', 'user_id'] : plain;
  return `cityHash64(${key.join(', ')})`;
}

/** `a, f(b, c), d` → ['a', 'f(b, c)', 'd']. */
function topLevelItems(list: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const ch = list[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      items.push(list.slice(start, i).trim());
      start = i + 1;
    }
  }
  items.push(list.slice(start).trim());
  return items;
}

/** The migration ledger, one copy on every server (one replication path for all shards). */
export const clusterLedger = (cluster: string) => `CREATE TABLE IF NOT EXISTS schema_migrations ON CLUSTER ${cluster}
(
    version    UInt32,
    name       String,
    checksum   String,
    applied_at DateTime64(3, 'UTC')
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/schema_migrations', '{replica}', applied_at)
ORDER BY version`;
