import { resolve } from 'node:path';
import { z } from 'zod';
import { envFragments, parseConfig } from '@evp/core';

const root = resolve(__dirname, '../..');

const schema = z.object({
  HOST: z.string().default('127.0.0.1'),
  // The one base URL every public route is served on (the services keep their own ports only when run alone).
  PORT: envFragments.port.default(8080),
  // ClickHouse's HTTP interface over chdb for analysts' tools (also under {base}/clickhouse/), on the port ClickHouse uses.
  CLICKHOUSE_HTTP_PORT: envFragments.port.default(8123),
  DEV_DATA_DIR: z.string().default(resolve(root, '.local/dev')),
  KEYS_FILE: z.string().default(resolve(root, 'dev/keys.local.json')),
  LOG_LEVEL: envFragments.logLevel.default('warn'),
  // Browser origins allowed on the SDK-key routes, as the services' own CORS_ORIGINS (default `*`).
  CORS_ORIGINS: envFragments.corsOrigins,
});

export type DevConfig = z.infer<typeof schema>;
export const loadDevConfig = (env: Record<string, string | undefined> = process.env): DevConfig => parseConfig(schema, env);
