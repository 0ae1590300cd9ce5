import { z } from 'zod';
import { envFragments, envShapeOf, fromEnv, parseConfig, withDefaults } from '@evp/core';
import { VALIDATOR_OPTIONS, type ValidatorConsumerConfig } from './options';

const schema = z.object({
  KAFKA_BROKERS: envFragments.kafkaBrokers,
  KAFKA_SESSION_TIMEOUT_MS: envFragments.kafkaSessionTimeoutMs,
  SCHEMA_REGISTRY_URL: envFragments.url,
  LOG_LEVEL: envFragments.logLevel,
  METRICS_PORT: envFragments.port.default(9102),
  // The keys file's per-app privacy policy and pseudonym keys (docs/privacy.md), reloaded like the other services'.
  KEYS_FILE: envFragments.keys.KEYS_FILE,
  KEYS_RELOAD_INTERVAL_MS: envFragments.keys.KEYS_RELOAD_INTERVAL_MS,
  /** Drops events and records naming a suppressed (erased) user or patient (docs/privacy.md); unset: none is dropped. */
  PRIVACY_HASH_KEY: envFragments.privacyHashKey,
  // MAX_EVENT_CHARS, VALIDATOR_WORKERS: with their defaults and meanings in VALIDATOR_OPTIONS.
  ...envShapeOf(VALIDATOR_OPTIONS),
});

export type ValidatorConfig = z.infer<typeof schema>;
export const loadValidatorConfig = (env: Record<string, string | undefined> = process.env): ValidatorConfig => parseConfig(schema, env);

/** The validator's settings the environment gives; the rest are VALIDATOR_OPTIONS' defaults. */
export const validatorConsumerConfig = (c: ValidatorConfig): ValidatorConsumerConfig => withDefaults(VALIDATOR_OPTIONS, fromEnv(VALIDATOR_OPTIONS, c));
