import { clientEventVariant } from './client-variants';
import { eventDef, resolveEventName } from './event-defs';
import type { RuleName } from '../rules/registry';

/**
 * Event type names real clients send for an event the spec names otherwise (docs/data-contract.md,
 * "Real clients"); each is accepted with the warning `event_alias` and the name as sent is kept in
 * `sent_name`:
 *
 * - `identity`: identify as causalfoundry/ios-sdk 0.4.3–1.2.3 names it (CoreEventType.Identify);
 * - `schedule_delivery`: the 0.4.3–0.5.3 scheduling event, a delivery with action schedule/update
 *   (its `delivery_ts` is the delivery's `est_delivery_ts`; it has no delivery id of its own).
 */
export const clientEventAliases: Readonly<Record<string, string>> = { identity: 'identify', schedule_delivery: 'delivery' };

/** camelCase → snake_case: 0.4.x clients send Swift case names (`moduleSelection`, `submitScreening`). */
const snakeCase = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

export interface ResolvedName {
  /** The event name to validate against (a defined event, or the name as sent when none matches). */
  name: string;
  /**
   * Set when the name was read through a client's spelling (reported at the event name) or, for a
   * name the spec lacks, through one of the clients' variants (events/client-variants.ts: Kenkai's
   * `payment`, an app's own track event), which depends on the props and is reported at them.
   */
  warning?: { rule: RuleName; message: string; at: 'name' | 'props' };
}

/**
 * The event a sent name means, the one place that reads event names: the name itself, a spec-level
 * alias or content variant (`resolveEventName`), a client alias (`event_alias`), a camelCase spelling
 * of a defined name (`event_spelling`), and last, for a name still unknown, a client variant.
 * Own-property lookups only: `constructor` must not resolve.
 */
export function resolveSentEventName(sent: string, props: Record<string, unknown>): ResolvedName {
  const spelled = resolveSpelling(sent, props);
  if (eventDef(spelled.name)) return spelled;
  const variant = clientEventVariant(sent, props);
  if (variant && eventDef(variant.event)) return { name: variant.event, warning: { rule: variant.rule, message: variant.message, at: 'props' } };
  return spelled;
}

function resolveSpelling(sent: string, props: Record<string, unknown>): ResolvedName {
  const name = resolveEventName(sent, props);
  if (eventDef(name)) return { name };
  if (Object.hasOwn(clientEventAliases, sent)) {
    const alias = clientEventAliases[sent] as string;
    return { name: alias, warning: { rule: 'event_alias', message: `${sent} is a client name of ${alias}`, at: 'name' } };
  }
  const folded = snakeCase(sent);
  if (folded !== sent) {
    const resolved = resolveSpelling(folded, props);
    if (eventDef(resolved.name)) {
      const via = resolved.name === folded ? '' : ` (${folded})`;
      return { name: resolved.name, warning: { rule: 'event_spelling', message: `${sent}${via} read as ${resolved.name}`, at: 'name' } };
    }
  }
  return { name };
}
