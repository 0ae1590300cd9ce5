import { z } from 'zod';
import { envFragments, parseConfig } from '@evp/core';

/** `npm run deadletters`: the broker whose `deadletters` topic it reads and whose source topics it replays to. */
const schema = z.object({
  KAFKA_BROKERS: envFragments.kafkaBrokers,
  LOG_LEVEL: envFragments.logLevel.default('warn'),
});

export type DeadLettersConfig = z.infer<typeof schema>;
export const loadDeadLettersConfig = (env: Record<string, string | undefined> = process.env): DeadLettersConfig => parseConfig(schema, env);
