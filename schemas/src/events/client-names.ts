import { eventDef, resolveEventName } from './registry';

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
  /** Set when the name was read through a client's spelling. */
  warning?: { rule: 'event_alias' | 'event_spelling'; message: string };
}

/**
 * The event a sent name means: the name itself, a spec-level alias or content variant
 * (`resolveEventName`), a client alias (`event_alias`) or a camelCase spelling of a defined name
 * (`event_spelling`). Own-property lookups only: `constructor` must not resolve.
 */
export function resolveSentEventName(sent: string, props: Record<string, unknown>): ResolvedName {
  const name = resolveEventName(sent, props);
  if (eventDef(name)) return { name };
  if (Object.hasOwn(clientEventAliases, sent)) {
    const alias = clientEventAliases[sent] as string;
    return { name: alias, warning: { rule: 'event_alias', message: `${sent} is a client name of ${alias}` } };
  }
  const folded = snakeCase(sent);
  if (folded !== sent) {
    const resolved = resolveSentEventName(folded, props);
    if (eventDef(resolved.name)) {
      const via = resolved.name === folded ? '' : ` (${folded})`;
      return { name: resolved.name, warning: { rule: 'event_spelling', message: `${sent}${via} read as ${resolved.name}` } };
    }
  }
  return { name };
}
