import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { envFragments, envOption, fixedOption, type ConfigOf } from '@evp/core';
import { DEFAULT_NORMALIZE_OPTIONS } from '@evp/schemas';

/** The validator's name: its consumer group's default, its log lines' component, its dead letters' processor. */
export const VALIDATOR_NAME = 'validator';

/** A count (0: inline) or `auto`: one per CPU the process may run on. */
const workers = z.union([z.literal('auto'), z.coerce.number().int().min(0).max(64)]).transform((v) => (v === 'auto' ? availableParallelism() : v));

/** Every setting of the validator, with its default and meaning (docs/configuration.md is generated from it). */
export const VALIDATOR_OPTIONS = {
  groupId: fixedOption(VALIDATOR_NAME as string, 'Consumer group of `ingest.raw`.'),
  fromBeginning: fixedOption(
    true,
    'Where a group without committed offsets starts: true, the earliest message, so a new deployment never skips what the gateway already acknowledged; tests on a shared broker start at the end.',
  ),
  workers: envOption(
    'VALIDATOR_WORKERS',
    workers,
    0,
    'Encode worker threads that normalise and encode (encode-pool.ts); 0 works on the main thread, `auto` starts one per CPU the process may run on. Set it to the container’s CPU quota where that is below the machine’s CPUs.',
    'auto',
  ),
  maxEventChars: envOption('MAX_EVENT_CHARS', envFragments.positiveInt, DEFAULT_NORMALIZE_OPTIONS.maxEventChars, 'Largest accepted event, as JSON characters.'),
};

/** What the validator runs with: each field's meaning and default in VALIDATOR_OPTIONS. */
export type ValidatorConsumerConfig = ConfigOf<typeof VALIDATOR_OPTIONS>;
