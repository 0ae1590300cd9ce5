import { PROP_CHECKS } from '../../../generated/prop-checks';
import type { ClientLine } from '../../clients/identity';
import type { Reason } from '../../rules/registry';
import { toleratingOmissions } from '../../dsl/omissions';
import type { EventDef, RecognisedClient } from '../../dsl/types';
import { validateObject, type ValidationResult } from '../../dsl/validate';
import { adaptCurrentFormEvent } from '../flat-ctx/adapt';
import type { EventDraft } from './draft';

/** Current-form clients that flatten ctx (Kenkai): the spec's shape rebuilt before validation (flat-ctx/adapt.ts). */
export function adaptCtx(d: EventDraft): boolean {
  if (d.facts.form === 'current') d.adapted = adaptCurrentFormEvent({ def: d.def as EventDef, raw: d.raw, facts: d.facts, path: d.path });
  return true;
}

/**
 * The props against the event's definition (dsl/validate.ts). The required fields real clients
 * leave out (client.mayOmit) are tolerated only for the events of those clients, recognised by
 * their sdk and form (clients/identity.ts); any other client is held to `required`. The adapter's
 * warnings follow the validator's reasons, as they always have.
 */
export function validateProps(d: EventDraft): boolean {
  const def = d.def as EventDef;
  const sender = d.facts.line === null ? undefined : OMITTING_CLIENT[d.facts.line];
  const checked = sender ? toleratingOmissions(def, sender) : def;
  const props = d.adapted?.props ?? d.raw.props;
  // The event type's generated check first (schemas/generated/prop-checks.ts): props as the spec
  // writes them, with nothing to report; anything else is validateObject's.
  const clean = checked === def ? PROP_CHECKS.get(def.event)?.(props) : undefined;
  const validated: ValidationResult =
    clean !== undefined ? { value: clean, reasons: NONE, unknown: NO_EXTRAS, warnings: NONE } : validateObject(checked, props, d.propsPath);
  d.validated = validated;
  for (const e of validated.reasons) d.reasons.push(e);
  if (d.adapted) for (const w of d.adapted.warnings) d.quirks.push(w);
  return true;
}

/** Shared by every clean event, frozen: nothing downstream may add to them. */
const NONE: Reason[] = Object.freeze([]) as unknown as Reason[];
const NO_EXTRAS: Record<string, unknown> = Object.freeze({});

/** The client whose omissions (FieldClientValues.mayOmit, dsl/omissions.ts) a known client line's events may have. */
const OMITTING_CLIENT: Record<ClientLine, RecognisedClient> = {
  'ios-cf': 'ios-cf',
  'ios-kenkai': 'ios-kenkai',
  'unity-ios': 'ios-kenkai',
  'server-import': 'server-import',
};
