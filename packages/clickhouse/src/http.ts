import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import type { Analytics } from '@evp/core';
import { analyticsFromClient } from './analytics';
import { toAnalyticsError } from './errors';
import { identifier } from './identifiers';
import { stringifyRow } from './json-row';

export interface ClickHouseHttpOptions {
  /** e.g. http://localhost:8123 */
  url: string;
  username: string;
  password: string;
  database: string;
  /** Per request; an insert of a large batch must fit. Default 30 s. */
  requestTimeoutMs?: number;
  /** Shows up in system.query_log's http_user_agent. */
  application?: string;
}

/** The real Analytics adapter: @clickhouse/client over HTTP to a ClickHouse server. Deliberately thin. */
export function createClickHouseHttpAnalytics(opts: ClickHouseHttpOptions): Analytics {
  const client = createClient({
    url: opts.url,
    username: opts.username,
    password: opts.password,
    database: identifier(opts.database, 'database name'),
    request_timeout: opts.requestTimeoutMs ?? 30_000,
    application: opts.application ?? 'evp',
    // Failures are rethrown as InfraErrors and logged by the caller, with context, once.
    log: { level: ClickHouseLogLevel.OFF },
    // Rows are JSON text ClickHouse takes: a lone surrogate in a value would be refused forever;
    // rows serialized ahead (JsonRow) are sent as they are.
    json: { stringify: stringifyRow },
  });
  return analyticsFromClient(client);
}

/**
 * Creates the database when missing (with a cluster name: on every server of that cluster). Over
 * HTTP every request names its database, and naming one that does not exist fails, so this runs
 * through a client bound to `default`.
 */
export async function ensureClickHouseDatabase(opts: ClickHouseHttpOptions, cluster?: string): Promise<void> {
  const database = identifier(opts.database, 'database name');
  const onCluster = cluster ? ` ON CLUSTER ${identifier(cluster, 'cluster name')}` : '';
  const client = createClient({
    url: opts.url,
    username: opts.username,
    password: opts.password,
    request_timeout: opts.requestTimeoutMs ?? 30_000,
    application: opts.application ?? 'evp',
    log: { level: ClickHouseLogLevel.OFF },
  });
  try {
    await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}${onCluster}` });
  } catch (err) {
    throw toAnalyticsError(err, `create database ${database}`);
  } finally {
    await client.close();
  }
}
