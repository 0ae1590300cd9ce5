import { z } from 'zod';

/**
 * The classes of stored data an app sets a retention for (docs/privacy.md, "Retention"), and the
 * ClickHouse tables each one covers. A table is in exactly one class.
 */
export const RETENTION_CLASSES = {
  /** The canonical events. */
  events: ['events'],
  /** What apps sent that was not taken, and raw messages: rejected records (with their payload), dead letters, ingest receipts. */
  rejected: ['rejected', 'dead_letters', 'ingest_receipts'],
  /** Catalog records (the latest version per id): every catalog_<kind> table and catalog_custom. */
  catalogs: ['catalog_*'],
  /** The action store's log: every created, delivered, withdrawn, expired and capped action. */
  action_log: ['actions_log'],
  /** What campaigns did with each user of each run. */
  history: ['campaign_outcomes'],
} as const;
export type RetentionClass = keyof typeof RETENTION_CLASSES;
export const RETENTION_CLASS_NAMES = Object.keys(RETENTION_CLASSES) as RetentionClass[];

/** Days a row is kept after its time; 0 = forever (the stamp ClickHouse rows carry in `retention_days`). */
type RetentionDays = number;
export type AppRetention = Readonly<Record<RetentionClass, RetentionDays>>;

/** The UInt16 of `retention_days`: at most 65535 days (179 years); 0 is forever. */
export const MAX_RETENTION_DAYS = 65_535;

/**
 * The defaults of an app that sets none (docs/privacy.md lists them): rejected payloads 30 days, as
 * the receipts' TTL was before retention was per app; everything else forever, as before, so that
 * an upgrade deletes nothing an app did not ask to delete (and events an app imports from years ago
 * are not dropped on arrival). An app holding health data sets its own.
 */
export const DEFAULT_RETENTION: AppRetention = { events: 0, rejected: 30, catalogs: 0, action_log: 0, history: 0 };

/** In the keys file: a whole number of days, or the explicit `"forever"`. */
const retentionValue = z.union([z.literal('forever'), z.number().int().min(1).max(MAX_RETENTION_DAYS)]);
export const retentionSettings = z
  .object(Object.fromEntries(RETENTION_CLASS_NAMES.map((c) => [c, retentionValue.optional()])) as Record<RetentionClass, z.ZodOptional<typeof retentionValue>>)
  .strict();
export type RetentionSettings = z.infer<typeof retentionSettings>;

/** An app's settings over the defaults, as days (0 = forever). */
export function resolveRetention(settings: RetentionSettings | undefined): AppRetention {
  if (settings === undefined) return DEFAULT_RETENTION;
  const out = { ...DEFAULT_RETENTION };
  for (const c of RETENTION_CLASS_NAMES) {
    const v = settings[c];
    if (v !== undefined) out[c] = v === 'forever' ? 0 : v;
  }
  return out;
}
