import { resolveSentEventName } from '../../events/client-names';
import { eventDef } from '../../events/event-defs';
import type { EventDraft } from './draft';

/**
 * Which event type the log is. Aliases (action_response), content-dependent variants (receipts
 * sent as `group`), client spellings (identity, moduleSelection) and client variants of names the
 * spec lacks (Kenkai's payment, an app's own track event): one resolver, events/client-names.ts;
 * the name as sent survives in `sent_name`. An unknown name ends the event: nothing else can be
 * checked without its definition.
 */
export function resolveName(d: EventDraft): boolean {
  const { raw, facts, path } = d;
  const resolved = resolveSentEventName(raw.name, raw.props);
  const def = eventDef(resolved.name);
  d.namePath = `${path}.${facts.form === 'current' ? 'name' : 'type'}`;
  d.propsPath = `${path}.${facts.form === 'current' ? 'ctx' : 'props'}`;
  if (!def) {
    d.reasons.push({ path: d.namePath, rule: 'unknown_event', message: `${raw.name} is not a known event type` });
    return false;
  }
  d.def = def;
  const read = resolved.warning;
  if (read) d.quirks.push({ path: read.at === 'name' ? d.namePath : d.propsPath, rule: read.rule, message: read.message });
  // An event the spec lacks, defined from the real clients that send it (a variant's warning says so already).
  if (def.origin !== undefined && read?.at !== 'props') {
    d.quirks.push({ path: d.namePath, rule: 'event_not_in_spec', message: `${def.event} is not in the spec; defined from ${def.origin}` });
  }
  return true;
}
