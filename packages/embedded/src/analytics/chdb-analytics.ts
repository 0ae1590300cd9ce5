import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { analyticsFromClient, identifier } from '@evp/clickhouse';
import type { Analytics } from '@evp/core';
import { createChdbConnection } from 'chdb/connection';

type ClientConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>;

export interface ChdbAnalyticsOptions {
  /**
   * Data directory, or `:memory:` for a throw-away one. libchdb binds ONE data directory per
   * process: every chdb instance alive at the same time in a process must use the same path.
   */
  path: string;
  /**
   * Database the instance works in (created when missing). The chdb connection ignores the client's
   * `database` option, so it is selected with `USE` on this connection's session. Default `default`.
   */
  database?: string;
}

/**
 * The embedded Analytics adapter: the very same @clickhouse/client code as the HTTP adapter
 * (`analyticsFromClient`), over chdb's in-process connection (ClickHouse 26). All calls are async;
 * chdb's synchronous API would block the event loop.
 */
export function createChdbAnalytics(opts: ChdbAnalyticsOptions): Analytics {
  // chdb types its connection against its own copy of @clickhouse/client-common, which TypeScript
  // sees as a different (structurally incompatible in settings typings) declaration; at runtime it
  // is the Connection contract the client expects.
  const connection = createChdbConnection({ path: opts.path }) as unknown as ClientConnection;
  // Failures are rethrown as InfraErrors and logged by the caller, with context, once.
  const client = createClient({ connection, log: { level: ClickHouseLogLevel.OFF } });
  const database = opts.database === undefined ? undefined : identifier(opts.database, 'database name');
  return analyticsFromClient(client, {
    setup: database ? [`CREATE DATABASE IF NOT EXISTS ${database}`, `USE ${database}`] : [],
  });
}
