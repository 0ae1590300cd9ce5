import type { Block } from '@evp/core';
import type { EventDef } from '../dsl/types';
import { callCenterEvents } from './call-center';
import { chatEvents, RECEIPT_TYPES } from './chat';
import { coreEvents } from './core';
import { eCommerceEvents } from './e-commerce';
import { eLearningEvents } from './e-learning';
import { emergencyMgmtEvents } from './emergency-mgmt';
import { loyaltyEvents } from './loyalty';
import { patientMgmtEvents } from './patient-mgmt';
import { legacyPatientMgmtEvents } from './patient-mgmt-legacy';
import { paymentEvents } from './payment';

/** Every event definition; a block's Avro schema and the validator are derived from this list. */
export const eventDefs: EventDef[] = [
  ...coreEvents,
  ...patientMgmtEvents,
  ...legacyPatientMgmtEvents,
  ...eCommerceEvents,
  ...eLearningEvents,
  ...loyaltyEvents,
  ...emergencyMgmtEvents,
  ...callCenterEvents,
  ...chatEvents,
  ...paymentEvents,
];

/** Newer or client-side names that mean an existing event. */
export const eventAliases: Record<string, string> = { action_response: 'nudge_response' };

const byName = new Map(eventDefs.map((d) => [d.event, d]));

/** Own-property lookup: a sent name such as `constructor` must not resolve through Object.prototype. */
const alias = (name: string): string => (Object.hasOwn(eventAliases, name) ? (eventAliases[name] as string) : name);

export function eventDef(name: string): EventDef | undefined {
  return byName.get(alias(name));
}

export function eventsOfBlock(block: Block): EventDef[] {
  return eventDefs.filter((d) => d.block === block);
}

const receiptTypes: readonly string[] = RECEIPT_TYPES;

/**
 * The event name to validate against, given the name as sent and its properties. Besides the
 * aliases, one variant depends on content: the spec's receipt samples carry the outer type `group`
 * (spec 6, Chat). A `group` whose props hold a string `msg_id` and a receipt `type` (sent, failed,
 * deleted, delivered, read) is a receipt: group types (join, leave, …) and receipt types do not
 * overlap, so the rule cannot misread a real group event. Anything else named `group` stays a group
 * (and is validated, and possibly rejected, as one).
 */
export function resolveEventName(name: string, props: Record<string, unknown>): string {
  if (name === 'group' && typeof props.msg_id === 'string' && typeof props.type === 'string' && receiptTypes.includes(props.type)) {
    return 'receipt';
  }
  return alias(name);
}
