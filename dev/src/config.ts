import { resolve } from 'node:path';
import { z } from 'zod';
import { envFragments, parseConfig } from '@evp/core';

const root = resolve(__dirname, '../..');

const schema = z.object({
  HOST: z.string().default('127.0.0.1'),
  GATEWAY_PORT: envFragments.port.default(8080),
  ACTIONS_PORT: envFragments.port.default(8090),
  DEV_DATA_DIR: z.string().default(resolve(root, '.local/dev')),
  KEYS_FILE: z.string().default(resolve(root, 'dev/keys.local.json')),
  LOG_LEVEL: envFragments.logLevel.default('warn'),
});

export type DevConfig = z.infer<typeof schema>;
export const loadDevConfig = (env: Record<string, string | undefined> = process.env): DevConfig => parseConfig(schema, env);
