import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { analyticsFromClient, identifier, stringifyRow } from '@evp/clickhouse';
import type { Analytics } from '@evp/core';
import { createChdbConnection } from 'chdb/connection';

type ClientConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>;

export interface ChdbAnalyticsOptions {
  /**
   * Data directory, or `:memory:` for this process's scratch directory (see chdbScratchPath).
   * libchdb binds ONE data directory per process: every chdb instance alive at the same time in a
   * process must use the same path.
   */
  path: string;
  /**
   * Database the instance works in (created when missing). The chdb connection ignores the client's
   * `database` option, so it is selected with `USE` on this connection's session. Default `default`.
   */
  database?: string;
}

const SCRATCH_ROOT = join(tmpdir(), 'evp-chdb-scratch');

/**
 * One throw-away chdb directory per process, derived from the pid alone. chdb's own `:memory:`
 * picks a fresh temporary directory per module instance, and jest loads modules afresh for every
 * test file of a worker process while libchdb (native, one directory per process) stays bound: a
 * later file's `:memory:` then names another directory and is refused. A name computed from the pid
 * is the same for every module instance, and directories of processes that are gone are removed.
 * Tests keep their tables apart with a database of their own.
 */
export function chdbScratchPath(): string {
  mkdirSync(SCRATCH_ROOT, { recursive: true });
  for (const name of readdirSync(SCRATCH_ROOT)) {
    const pid = Number(name);
    if (Number.isInteger(pid) && pid !== process.pid && !alive(pid)) {
      rmSync(join(SCRATCH_ROOT, name), { recursive: true, force: true });
    }
  }
  const dir = join(SCRATCH_ROOT, String(process.pid));
  mkdirSync(dir, { recursive: true });
  return dir;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The embedded Analytics adapter: the very same @clickhouse/client code as the HTTP adapter
 * (`analyticsFromClient`), over chdb's in-process connection (ClickHouse 26). All calls are async;
 * chdb's synchronous API would block the event loop.
 */
export function createChdbAnalytics(opts: ChdbAnalyticsOptions): Analytics {
  const database = opts.database === undefined ? undefined : identifier(opts.database, 'database name');
  const path = opts.path === ':memory:' ? chdbScratchPath() : opts.path;
  // chdb types its connection against its own copy of @clickhouse/client-common, which TypeScript
  // sees as a different (structurally incompatible in settings typings) declaration; at runtime it
  // is the Connection contract the client expects.
  const connection = createChdbConnection({ path }) as unknown as ClientConnection;
  // Failures are rethrown as InfraErrors and logged by the caller, with context, once.
  // Rows are JSON text ClickHouse takes, as over HTTP (stringifyRow).
  const client = createClient({ connection, log: { level: ClickHouseLogLevel.OFF }, json: { stringify: stringifyRow } });
  // RowBinary bodies reach chdb as files it reads (analyticsFromClient's rowBinaryFileDir), beside its data.
  const rowBinaryFileDir = resolve(path, 'evp-rowbinary');
  mkdirSync(rowBinaryFileDir, { recursive: true });
  return analyticsFromClient(client, {
    setup: database ? [`CREATE DATABASE IF NOT EXISTS ${database}`, `USE ${database}`] : [],
    rowBinaryFileDir,
  });
}
