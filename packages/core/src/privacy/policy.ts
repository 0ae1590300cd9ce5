import { z } from 'zod';
import { PRIVACY_ACTIONS, SENSITIVE_CLASSES, type PrivacyAction, type SensitiveClass } from './classes';

/** Blocks that carry health data: their own class table and the unknown-properties switch apply there. */
export const HEALTH_BLOCKS = ['patient_mgmt', 'emergency_mgmt'] as const;

const action = z.enum(PRIVACY_ACTIONS);
const classTable = z
  .object(Object.fromEntries(SENSITIVE_CLASSES.map((c) => [c, action.optional()])) as Record<SensitiveClass, z.ZodOptional<typeof action>>)
  .strict();

/**
 * `apps.<app_id>.privacy` in the keys file (docs/privacy.md, "Policy"): what the validator does with
 * each class of field, in every block and catalog (`classes`) and in health blocks (`health_blocks`,
 * falling back to the health default, then to `classes`), and whether unknown properties of health
 * blocks are kept or dropped.
 */
export const appPrivacySchema = z
  .object({
    classes: classTable.optional(),
    health_blocks: classTable.optional(),
    unknown_properties: z.enum(['keep', 'drop']).optional(),
  })
  .strict();
export type AppPrivacySettings = z.infer<typeof appPrivacySchema>;

/** Defaults, written once: keep everything, except free text in health blocks (docs/privacy.md argues each). */
export const PRIVACY_DEFAULTS = {
  classes: 'keep' as PrivacyAction,
  health_blocks: { free_text: 'drop' } as Partial<Record<SensitiveClass, PrivacyAction>>,
  unknown_properties: 'keep' as 'keep' | 'drop',
};

/** An app's pseudonym key as the validator uses it: the newest version in the keys file. */
export interface PseudonymKey {
  version: number;
  secret: string;
}

/**
 * An app's resolved policy: plain data (it crosses to the validator's encode workers by structured
 * clone). `key` is absent when the app has no pseudonym key; the keys file refuses a policy that
 * pseudonymises without one.
 */
export interface AppPrivacy {
  classes: Record<SensitiveClass, PrivacyAction>;
  health: Record<SensitiveClass, PrivacyAction>;
  unknownInHealth: 'keep' | 'drop';
  key?: PseudonymKey;
}

/** Every app's policy, and the default for apps the keys file does not name. */
export interface PrivacyTable {
  apps: Record<string, AppPrivacy>;
  default: AppPrivacy;
}

/** An app's policy from its settings (defaults for what they leave out). */
export function resolvePrivacy(settings: AppPrivacySettings | undefined, key?: PseudonymKey): AppPrivacy {
  const classes = {} as Record<SensitiveClass, PrivacyAction>;
  const health = {} as Record<SensitiveClass, PrivacyAction>;
  for (const c of SENSITIVE_CLASSES) {
    classes[c] = settings?.classes?.[c] ?? PRIVACY_DEFAULTS.classes;
    health[c] = settings?.health_blocks?.[c] ?? PRIVACY_DEFAULTS.health_blocks[c] ?? classes[c];
  }
  const out: AppPrivacy = { classes, health, unknownInHealth: settings?.unknown_properties ?? PRIVACY_DEFAULTS.unknown_properties };
  if (key !== undefined) out.key = key;
  return out;
}

/** Whether a policy pseudonymises any class (it then needs a key). */
export const pseudonymisesAny = (p: AppPrivacy): boolean => SENSITIVE_CLASSES.some((c) => p.classes[c] === 'pseudonymise' || p.health[c] === 'pseudonymise');

/** The policy of `appId` in a table. */
export const privacyOf = (table: PrivacyTable, appId: string): AppPrivacy => table.apps[appId] ?? table.default;

/** The table of a keys file that sets no privacy: every app has the defaults. */
export const DEFAULT_PRIVACY_TABLE: PrivacyTable = Object.freeze({ apps: {}, default: resolvePrivacy(undefined) });
